//! The server's state, shared by every handler: how to make engines, the search slots, and the
//! recorded trees kept for expanding their nodes. Searches run on blocking threads holding a
//! slot (`blocking`); a request waits up to two seconds for one, then gets 503.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::api::Makers;
use super::reply::ApiError;
use crate::tree::Tree;

/// Searches (analyses, streams, trees, ladders) running at once.
pub const MAX_SEARCHES: usize = 2;
/// Recorded trees kept for expanding their nodes.
const TREE_CACHE: usize = 4;

/// The server's state: how to make engines, the search slots, recorded trees.
pub struct Lab {
    pub makers: Makers,
    pub searches: Arc<Semaphore>,
    trees: Mutex<VecDeque<(String, Arc<Tree>)>>,
}

impl Lab {
    pub fn new(makers: Makers) -> Lab {
        Lab {
            makers,
            searches: Arc::new(Semaphore::new(MAX_SEARCHES)),
            trees: Mutex::new(VecDeque::new()),
        }
    }

    /// A search slot, waiting up to two seconds for one.
    pub async fn permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        match tokio::time::timeout(
            Duration::from_secs(2),
            self.searches.clone().acquire_owned(),
        )
        .await
        {
            Ok(Ok(p)) => Ok(p),
            _ => Err(ApiError::busy(MAX_SEARCHES)),
        }
    }

    /// Searches running now.
    pub fn running(&self) -> usize {
        MAX_SEARCHES - self.searches.available_permits().min(MAX_SEARCHES)
    }

    pub fn cached_tree(&self, key: &str) -> Option<Arc<Tree>> {
        let trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        trees.iter().find(|(k, _)| k == key).map(|(_, t)| t.clone())
    }

    pub fn keep_tree(&self, key: String, tree: Arc<Tree>) {
        let mut trees = self.trees.lock().unwrap_or_else(|e| e.into_inner());
        trees.retain(|(k, _)| *k != key);
        trees.push_front((key, tree));
        trees.truncate(TREE_CACHE);
    }
}

/// Raises the flag when dropped: a request whose client went away stops its search.
pub struct StopOnDrop(pub Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Runs `work` on a blocking thread holding a search slot.
pub async fn blocking<T: Send + 'static>(
    lab: &Lab,
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let permit = lab.permit().await?;
    tokio::task::spawn_blocking(move || {
        let _permit = permit;
        work()
    })
    .await
    .unwrap_or_else(|_| Err(ApiError::failed()))
}
