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
