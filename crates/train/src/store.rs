//! Object storage for distributed self-play, through the `object_store` crate.
//!
//! A store is named by a URL: `s3://bucket/prefix` (AWS S3 or any S3-compatible server;
//! credentials, region and endpoint from the environment as `object_store` reads them:
//! `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_REGION`, `AWS_ENDPOINT`,
//! `AWS_ALLOW_HTTP=true` for a plain-HTTP endpoint), `file:///absolute/path` (a local or
//! shared folder) or `memory://` (this process only; tests). Calls block: the store runs
//! its own small async runtime. Transient errors are retried with exponential backoff
//! and reported, up to a configured time; "not found" and "already exists" are answers,
//! not errors.

use futures_util::TryStreamExt;
use object_store::path::Path as ObjPath;
use object_store::{ObjectStore, ObjectStoreExt, PutMode, PutOptions, PutPayload, RetryConfig};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A store that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The URL names no store this build can open.
    #[error("store URL `{url}`: {reason}")]
    Url {
        /// The URL.
        url: String,
        /// What is wrong.
        reason: String,
    },
    /// An error that retrying cannot mend (a missing bucket, denied access, bad
    /// credentials, an operation the store does not support): reported at once.
    #[error("store `{url}`: {op} `{key}` failed: {reason}: {source}")]
    Permanent {
        /// The store's URL.
        url: String,
        /// `get`, `put`, `list`, ...
        op: &'static str,
        /// The key.
        key: String,
        /// What is wrong, in words.
        reason: &'static str,
        /// The error (boxed: object_store's errors are large).
        source: Box<object_store::Error>,
    },
    /// An operation kept failing past the retry time.
    #[error(
        "store `{url}`: {op} `{key}` failed after {attempts} attempts over {seconds:.0} s: {source}"
    )]
    Failed {
        /// The store's URL.
        url: String,
        /// `get`, `put`, `list`, ...
        op: &'static str,
        /// The key.
        key: String,
        /// Attempts made.
        attempts: u32,
        /// Seconds spent.
        seconds: f64,
        /// The last error (boxed: object_store's errors are large).
        source: Box<object_store::Error>,
    },
}

/// How a create-if-absent write ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Created {
    /// The object was written.
    Written,
    /// An object of that key existed already (nothing was written).
    Exists,
}

type Reporter = Arc<dyn Fn(&str) + Send + Sync>;

/// Why an error is permanent (retrying cannot mend it), or `None` for a transient one
/// (timeouts, refused connections, 5xx, throttling) or an answer.
fn permanent(e: &object_store::Error) -> Option<&'static str> {
    use object_store::Error as E;
    let text = e.to_string();
    if text.contains("NoSuchBucket") {
        return Some("the bucket does not exist");
    }
    // S3's codes for credentials it does not take (some operations, listings among
    // them, arrive as generic errors that carry only the status and the body).
    if ["InvalidAccessKeyId", "SignatureDoesNotMatch", "NotSignedUp"]
        .iter()
        .any(|c| text.contains(c))
    {
        return Some("the credentials are not accepted (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)");
    }
    match e {
        E::PermissionDenied { .. } => {
            Some("access denied (the credentials or the bucket's policy)")
        }
        E::Unauthenticated { .. } => Some(
            "not authenticated: check the credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)",
        ),
        E::NotSupported { .. }
        | E::NotImplemented { .. }
        | E::InvalidPath { .. }
        | E::UnknownConfigurationKey { .. } => Some("the store cannot do this"),
        _ if text.contains("403 Forbidden") || text.contains("AccessDenied") => {
            Some("access denied (the credentials or the bucket's policy)")
        }
        _ if text.contains("401 Unauthorized") => Some(
            "not authenticated: check the credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)",
        ),
        _ if text.contains("builder error") || text.contains("relative URL") => {
            Some("the endpoint is not a usable URL (AWS_ENDPOINT)")
        }
        _ => None,
    }
}

/// A blocking handle on an object store, rooted at the URL's prefix.
pub struct Store {
    inner: Arc<dyn ObjectStore>,
    prefix: String,
    url: String,
    rt: tokio::runtime::Runtime,
    retry_for: Duration,
    report: Reporter,
}

impl std::fmt::Debug for Store {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Store")
            .field("url", &self.url)
            .field("retry_for", &self.retry_for)
            .finish_non_exhaustive()
    }
}

impl Store {
    /// Opens the store a URL names. Transient errors are retried for up to `retry_for`.
    ///
    /// # Errors
    /// An unknown scheme, a malformed URL, or a folder that cannot be created.
    pub fn open(url: &str, retry_for: Duration) -> Result<Store, StoreError> {
        let bad = |reason: String| StoreError::Url {
            url: url.to_string(),
            reason,
        };
        let (inner, prefix): (Arc<dyn ObjectStore>, String) = if let Some(rest) =
            url.strip_prefix("s3://")
        {
            // The crypto provider of rustls; a second call finds it installed.
            let _ = rustls::crypto::ring::default_provider().install_default();
            let (bucket, prefix) = rest.split_once('/').unwrap_or((rest, ""));
            if bucket.is_empty() {
                return Err(bad("no bucket (expected s3://bucket/prefix)".into()));
            }
            let s3 = object_store::aws::AmazonS3Builder::from_env()
                .with_bucket_name(bucket)
                .with_retry(RetryConfig {
                    max_retries: 3,
                    retry_timeout: Duration::from_secs(15),
                    ..RetryConfig::default()
                })
                .build()
                .map_err(|e| bad(e.to_string()))?;
            (Arc::new(s3), prefix.trim_matches('/').to_string())
        } else if let Some(path) = url.strip_prefix("file://") {
            if !path.starts_with('/') {
                return Err(bad(
                        "a file URL needs an absolute path: file:///home/me/store (or file://$PWD/store)"
                            .into(),
                    ));
            }
            std::fs::create_dir_all(path).map_err(|e| bad(format!("{path}: {e}")))?;
            let fs = object_store::local::LocalFileSystem::new_with_prefix(path)
                .map_err(|e| bad(e.to_string()))?;
            (Arc::new(fs), String::new())
        } else if let Some(prefix) = url.strip_prefix("memory://") {
            (
                Arc::new(object_store::memory::InMemory::new()),
                prefix.trim_matches('/').to_string(),
            )
        } else {
            return Err(bad(
                "unknown scheme; this build opens s3://bucket/prefix, file:///path and memory://"
                    .into(),
            ));
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| bad(format!("cannot start the I/O runtime: {e}")))?;
        Ok(Store {
            inner,
            prefix,
            url: url.to_string(),
            rt,
            retry_for,
            report: Arc::new(|line| eprintln!("{line}")),
        })
    }

    /// Sends retry reports to `report` instead of standard error.
    pub fn with_reporter(mut self, report: impl Fn(&str) + Send + Sync + 'static) -> Store {
        self.report = Arc::new(report);
        self
    }

    /// The URL it was opened with.
    pub fn url(&self) -> &str {
        &self.url
    }

    fn path(&self, key: &str) -> ObjPath {
        if self.prefix.is_empty() {
            ObjPath::from(key)
        } else {
            ObjPath::from(format!("{}/{key}", self.prefix))
        }
    }

    /// Runs `f` until it succeeds, answers (`Ok(None)` from `classify`), or the retry
    /// time is spent.
    fn retry<T>(
        &self,
        op: &'static str,
        key: &str,
        mut f: impl FnMut() -> Result<T, object_store::Error>,
    ) -> Result<T, StoreError> {
        let t0 = Instant::now();
        let mut attempts = 0u32;
        let mut wait = Duration::from_millis(250);
        loop {
            attempts += 1;
            match f() {
                Ok(v) => {
                    if attempts > 1 {
                        (self.report)(&format!(
                            "store: {op} `{key}` succeeded after {attempts} attempts"
                        ));
                    }
                    return Ok(v);
                }
                Err(e) => {
                    if let Some(reason) = permanent(&e) {
                        return Err(StoreError::Permanent {
                            url: self.url.clone(),
                            op,
                            key: key.to_string(),
                            reason,
                            source: Box::new(e),
                        });
                    }
                    if t0.elapsed() + wait > self.retry_for {
                        return Err(StoreError::Failed {
                            url: self.url.clone(),
                            op,
                            key: key.to_string(),
                            attempts,
                            seconds: t0.elapsed().as_secs_f64(),
                            source: Box::new(e),
                        });
                    }
                    (self.report)(&format!(
                        "store: {op} `{key}` failed ({e}); retrying in {:.2} s",
                        wait.as_secs_f64()
                    ));
                    std::thread::sleep(wait);
                    wait = (wait * 2).min(Duration::from_secs(10));
                }
            }
        }
    }

    /// The object's bytes, or `None` when there is none.
    ///
    /// # Errors
    /// The store kept failing.
    pub fn get(&self, key: &str) -> Result<Option<Vec<u8>>, StoreError> {
        let p = self.path(key);
        self.retry("get", key, || {
            self.rt.block_on(async {
                match self.inner.get(&p).await {
                    Ok(r) => Ok(Some(r.bytes().await?.to_vec())),
                    // A missing bucket is no missing object.
                    Err(e @ object_store::Error::NotFound { .. }) if permanent(&e).is_some() => {
                        Err(e)
                    }
                    Err(object_store::Error::NotFound { .. }) => Ok(None),
                    Err(e) => Err(e),
                }
            })
        })
    }

    /// Writes an object whole (it replaces any object of that key).
    ///
    /// # Errors
    /// The store kept failing.
    pub fn put(&self, key: &str, bytes: &[u8]) -> Result<(), StoreError> {
        let p = self.path(key);
        self.retry("put", key, || {
            let payload = PutPayload::from(bytes.to_vec());
            self.rt.block_on(self.inner.put(&p, payload)).map(|_| ())
        })
    }

    /// Writes an object whole unless one of that key exists.
    ///
    /// # Errors
    /// The store kept failing.
    pub fn create(&self, key: &str, bytes: &[u8]) -> Result<Created, StoreError> {
        let p = self.path(key);
        self.retry("create", key, || {
            let payload = PutPayload::from(bytes.to_vec());
            let opts = PutOptions {
                mode: PutMode::Create,
                ..PutOptions::default()
            };
            match self.rt.block_on(self.inner.put_opts(&p, payload, opts)) {
                Ok(_) => Ok(Created::Written),
                Err(
                    object_store::Error::AlreadyExists { .. }
                    | object_store::Error::Precondition { .. },
                ) => Ok(Created::Exists),
                Err(e) => Err(e),
            }
        })
    }

    /// Whether an object of that key exists.
    ///
    /// # Errors
    /// The store kept failing.
    pub fn exists(&self, key: &str) -> Result<bool, StoreError> {
        let p = self.path(key);
        self.retry("head", key, || {
            match self.rt.block_on(self.inner.head(&p)) {
                Ok(_) => Ok(true),
                Err(object_store::Error::NotFound { .. }) => Ok(false),
                Err(e) => Err(e),
            }
        })
    }

    /// Deletes an object (none there is fine).
    ///
    /// # Errors
    /// The store kept failing.
    pub fn delete(&self, key: &str) -> Result<(), StoreError> {
        let p = self.path(key);
        self.retry("delete", key, || {
            match self.rt.block_on(self.inner.delete(&p)) {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => Ok(()),
                Err(e) => Err(e),
            }
        })
    }

    /// The keys under `prefix` (a folder: `chunks/w1`), relative to the store's root,
    /// sorted.
    ///
    /// # Errors
    /// The store kept failing.
    pub fn list(&self, prefix: &str) -> Result<Vec<String>, StoreError> {
        let p = self.path(prefix);
        let strip = if self.prefix.is_empty() {
            String::new()
        } else {
            format!("{}/", self.prefix)
        };
        let mut keys = self.retry("list", prefix, || {
            self.rt.block_on(async {
                let metas: Vec<_> = self.inner.list(Some(&p)).try_collect().await?;
                Ok(metas
                    .into_iter()
                    .map(|m| {
                        let k = m.location.to_string();
                        k.strip_prefix(&strip).map_or(k.clone(), str::to_string)
                    })
                    .collect::<Vec<_>>())
            })
        })?;
        keys.sort();
        Ok(keys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_and_file_stores_answer_the_same() {
        let dir = std::env::temp_dir().join(format!("fanorona-store-{}", std::process::id()));
        let file_url = format!("file://{}", dir.display());
        for url in ["memory://p/q", file_url.as_str()] {
            let s = Store::open(url, Duration::from_secs(1)).unwrap();
            assert_eq!(s.get("a/x").unwrap(), None);
            assert!(!s.exists("a/x").unwrap());
            s.put("a/x", b"one").unwrap();
            assert_eq!(s.get("a/x").unwrap().as_deref(), Some(&b"one"[..]));
            assert_eq!(s.create("a/x", b"two").unwrap(), Created::Exists);
            assert_eq!(s.get("a/x").unwrap().as_deref(), Some(&b"one"[..]));
            assert_eq!(s.create("a/y", b"two").unwrap(), Created::Written);
            s.put("b/z", b"").unwrap();
            assert_eq!(s.list("a").unwrap(), vec!["a/x", "a/y"]);
            s.delete("a/x").unwrap();
            s.delete("a/x").unwrap();
            assert_eq!(s.list("a").unwrap(), vec!["a/y"]);
            assert!(s.list("nothing").unwrap().is_empty());
        }
        std::fs::remove_dir_all(&dir).ok();
        for bad in ["ftp://x", "file://relative/path", "s3://", "plain"] {
            let e = Store::open(bad, Duration::from_secs(1)).unwrap_err();
            assert!(e.to_string().contains(bad), "{e}");
        }
    }

    #[test]
    fn failures_are_retried_then_reported_with_the_key() {
        // A store folder replaced by a file: every write fails the same way.
        let dir = std::env::temp_dir().join(format!("fanorona-store-bad-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let s = Store::open(
            &format!("file://{}", dir.display()),
            Duration::from_millis(600),
        )
        .unwrap();
        let reports = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
        let r2 = reports.clone();
        let s = s.with_reporter(move |l| r2.lock().unwrap().push(l.to_string()));
        std::fs::write(dir.join("blocker"), b"a file, not a folder").unwrap();
        let e = s.put("blocker/inside", b"x").unwrap_err();
        let text = e.to_string();
        assert!(
            text.contains("blocker/inside") && text.contains("attempts"),
            "{text}"
        );
        assert!(!reports.lock().unwrap().is_empty());
        std::fs::remove_dir_all(&dir).ok();
    }
}
