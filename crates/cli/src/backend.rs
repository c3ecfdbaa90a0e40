//! The one place that picks the network's backend: CUDA or wgpu when the binary is built
//! with that feature, else the CPU backend (flex). `FANORONA_DEVICE=cpu` runs a GPU build on
//! the CPU backend, so that one binary can measure both on the same machine.

use fanorona_nn::burn::prelude::Device;

/// Whether the environment asks a GPU build to run on the CPU (`FANORONA_DEVICE=cpu`).
fn cpu_forced() -> bool {
    std::env::var("FANORONA_DEVICE").is_ok_and(|v| v.eq_ignore_ascii_case("cpu"))
}

/// Checks `FANORONA_DEVICE`: unset, empty, `cpu` or `gpu` (the build's device).
pub fn check_env() -> Result<(), String> {
    match std::env::var("FANORONA_DEVICE") {
        Err(std::env::VarError::NotPresent) => Ok(()),
        Ok(v) if v.is_empty() || v.eq_ignore_ascii_case("cpu") || v.eq_ignore_ascii_case("gpu") => {
            Ok(())
        }
        Ok(v) => Err(format!(
            "FANORONA_DEVICE=`{v}`: expected `cpu` (the CPU backend) or `gpu` (the build's GPU backend, {})",
            if cfg!(any(feature = "cuda", feature = "wgpu")) {
                name_of_build()
            } else {
                "none in this build: it runs on the CPU"
            }
        )),
        Err(e) => Err(format!("FANORONA_DEVICE: {e}")),
    }
}

/// The backend this binary was built with.
fn name_of_build() -> &'static str {
    if cfg!(feature = "cuda") {
        "cuda"
    } else if cfg!(feature = "wgpu") {
        "wgpu"
    } else {
        "flex (cpu)"
    }
}

/// The device networks run on.
pub fn device() -> Device {
    if cpu_forced() {
        return Device::flex();
    }
    #[cfg(feature = "cuda")]
    {
        Device::cuda(0)
    }
    #[cfg(all(feature = "wgpu", not(feature = "cuda")))]
    {
        Device::wgpu(fanorona_nn::burn::tensor::DeviceKind::DefaultDevice)
    }
    #[cfg(not(any(feature = "cuda", feature = "wgpu")))]
    {
        Device::flex()
    }
}

/// The backend's name, for reports.
pub fn name() -> &'static str {
    if cpu_forced() {
        "flex (cpu)"
    } else {
        name_of_build()
    }
}
