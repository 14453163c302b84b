//! Plugs and indexes downloaded from a URL (`https://`, or `http://` to this
//! machine), under the limits of [`super::download`].

use reqwest::header::HeaderMap;
use reqwest::{Method, Url};

use super::cache::PlugCache;
use super::download::{Fetcher, Kind, shown};
use super::progress;
use super::reference::Digest;
use crate::error::{Result, err};

/// What this module's failures are, unless one says otherwise.
const KIND: crate::error::Kind = crate::error::Kind::Fetch;

/// Downloads a plug into a staged file of the cache; returns it (deleted
/// unless the caller commits it) and its digest.
pub async fn download_plug(
    fetcher: &Fetcher,
    url: &str,
    cache: &PlugCache,
) -> Result<(tempfile::NamedTempFile, Digest)> {
    let response = get(fetcher, url, Kind::Content).await?;
    let mut staged = cache.stage()?;
    let bar = progress::bar(response.content_length().unwrap_or(0), url);
    let result = fetcher
        .stream_to(
            response,
            staged.as_file_mut(),
            fetcher.limits.max_plug,
            None,
            &format!("downloading {}", shown(url)),
            &bar,
        )
        .await;
    bar.finish_and_clear();
    let (digest, _) = result?;
    Ok((staged, digest))
}

/// Downloads a document of at most `cap` bytes (an index).
pub async fn download_document(fetcher: &Fetcher, url: &str, cap: u64) -> Result<Vec<u8>> {
    let response = get(fetcher, url, Kind::Naming).await?;
    fetcher
        .read_capped(response, cap, &format!("downloading {}", shown(url)))
        .await
}

async fn get(fetcher: &Fetcher, url: &str, kind: Kind) -> Result<reqwest::Response> {
    let parsed =
        Url::parse(url).map_err(|e| err!(BadInput, "`{}` is not a URL: {e}", shown(url)))?;
    let response = fetcher
        .get(Method::GET, parsed, kind, HeaderMap::new(), None)
        .await?;
    if !response.status().is_success() {
        let why = fetcher.error_text(response).await;
        return Err(err!(
            "downloading {}: the server answered {why}",
            shown(url)
        ));
    }
    Ok(response)
}
