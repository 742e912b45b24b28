//! The async surface on a tokio runtime.
#![cfg(feature = "async")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use emdb_core::Emdb;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn async_handles_work_and_stream_in_chunks() {
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("a.emdb"))
        .build_async()
        .await
        .unwrap();
    db.insert("k", "v").await.unwrap();
    assert_eq!(db.get("k").await.unwrap(), Some(b"v".to_vec()));
    let items: Vec<(Vec<u8>, Vec<u8>)> = (0..1000u32)
        .map(|i| (i.to_le_bytes().to_vec(), vec![1u8; 10]))
        .collect();
    db.insert_many(items).await.unwrap();
    let ns = db.namespace("n").await.unwrap();
    ns.insert("a", "b").await.unwrap();
    assert_eq!(ns.len().await.unwrap(), 1);
    db.flush().await.unwrap();
    let mut it = db.iter().await.unwrap();
    let mut n = 0;
    while let Some(kv) = it.next().await {
        kv.unwrap();
        n += 1;
    }
    assert_eq!(n, 1001);
    assert_eq!(db.remove("k").await.unwrap(), Some(b"v".to_vec()));
    db.compact().await.unwrap();
    assert_eq!(db.len().await.unwrap(), 1000);
    assert_eq!(db.stats().await.unwrap().live_records, 1001);
}

/// A `next` dropped while it waits for its chunk (a `select!`, a timeout)
/// loses nothing: the next call gets the same chunk. Before, the iterator
/// went with the dropped future, and the iteration ended 744 pairs early,
/// as if the data had ended.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_next_loses_nothing() {
    use std::future::Future;
    let dir = tempfile::tempdir().unwrap();
    let db = Emdb::builder()
        .path(dir.path().join("c.emdb"))
        .build_async()
        .await
        .unwrap();
    let items: Vec<(Vec<u8>, Vec<u8>)> = (0..1000u32)
        .map(|i| (i.to_le_bytes().to_vec(), b"v".to_vec()))
        .collect();
    db.insert_many(items).await.unwrap();
    let mut it = db.iter().await.unwrap();
    let mut seen = Vec::new();
    while seen.len() < 256 {
        seen.push(it.next().await.unwrap().unwrap().0);
    }
    for _ in 0..3 {
        // Polled once (the fetch starts), then dropped.
        let mut fut = Box::pin(it.next());
        let done = std::future::poll_fn(|cx| std::task::Poll::Ready(fut.as_mut().poll(cx))).await;
        // A poll that finished delivers its pair, as a `select!` would.
        if let std::task::Poll::Ready(Some(pair)) = done {
            seen.push(pair.unwrap().0);
        }
    }
    while let Some(pair) = it.next().await {
        seen.push(pair.unwrap().0);
    }
    // `iter` walks in no particular order: every key once.
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 1000, "pairs seen once each");
}

/// Polled outside a tokio runtime (another executor), the async API fails
/// with an error instead of panicking inside tokio.
#[test]
fn outside_a_tokio_runtime_it_is_an_error_not_a_panic() {
    use std::future::Future;
    let dir = tempfile::tempdir().unwrap();
    let mut fut = Box::pin(
        Emdb::builder()
            .path(dir.path().join("o.emdb"))
            .build_async(),
    );
    let mut cx = std::task::Context::from_waker(std::task::Waker::noop());
    match fut.as_mut().poll(&mut cx) {
        std::task::Poll::Ready(Err(e)) => assert!(e.to_string().contains("blocking task"), "{e}"),
        std::task::Poll::Ready(Ok(_)) => panic!("opened without a runtime"),
        std::task::Poll::Pending => panic!("pending without a runtime"),
    }
}
