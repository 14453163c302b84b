//! Background work a step starts ahead of when it needs the answer.

use tokio::task::JoinHandle;

/// A spawned task that ends with its owner: work started ahead (a prefetch,
/// a request overlapping other work) stops when the step that wanted it
/// returns early.
pub struct AbortOnDrop<T>(pub JoinHandle<T>);

impl<T> AbortOnDrop<T> {
    pub fn spawn<F>(future: F) -> AbortOnDrop<T>
    where
        F: Future<Output = T> + Send + 'static,
        T: Send + 'static,
    {
        AbortOnDrop(tokio::spawn(future))
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}
