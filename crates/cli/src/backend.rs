//! The one place that picks the network's backend: CUDA or wgpu when the binary is built
//! with that feature, else the CPU backend (flex).

use fanorona_nn::burn::prelude::Device;

/// The device networks run on.
pub fn device() -> Device {
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
    if cfg!(feature = "cuda") {
        "cuda"
    } else if cfg!(feature = "wgpu") {
        "wgpu"
    } else {
        "flex (cpu)"
    }
}
