//! Changes layered over a keydir's base (docs/ARCHITECTURE.md, "Layered
//! opens").
//!
//! A read-only open beside a running writer used to apply every record the
//! writer logged since its checkpoint to the checkpoint's mapped slots: each
//! one copied a page of the image (copy-on-write) and read the record it
//! replaced, in a log of any size, to confirm the key. With the writer's
//! tail index at hand it layers those changes instead, and the base stays
//! as mapped, untouched:
//!
//! - `puts` holds each key's newest put since the base. It hides the key's
//!   base entry, if there is one, without anyone having looked for it: a
//!   lookup asks `puts` first, and a walk of the entries drops a base entry
//!   whose tag `puts` also holds when the two records have the same key.
//! - `gone` holds the base entries of deleted keys, by their exact offset,
//!   so skipping one needs no key comparison.
//!
//! Later changes (the rest of the replay, a follower) go to the layer too,
//! so the base is never written. Lock order: a layer shard, then the base
//! shard of the same number.

use parking_lot::RwLock;

use super::arena::Arenas;
use super::{KeyHash, Table, SHARDS};
use crate::error::{Error, Result};

/// One shard's changes over the base.
struct Delta {
    /// Keys whose newest record is a put, at that put.
    puts: Table,
    /// Base entries of deleted keys (tag and offset as in the base).
    gone: Table,
}

impl Delta {
    fn new(shard: usize) -> Delta {
        Delta {
            puts: Table::new(shard),
            gone: Table::new(shard),
        }
    }

    /// Whether the base entry (`tag`, `off`) belongs to a deleted key.
    fn hides(&self, tag: u32, off: u64) -> Result<bool> {
        Ok(self.gone.find(tag, |o| Ok(o == off))?.is_some())
    }

    /// The base entry of a key not in `puts` (`is_key` confirms a tag
    /// match), unless it was deleted; checked against a cut of its mapped
    /// checkpoint.
    fn in_base(
        &self,
        base: &RwLock<Table>,
        tag: u32,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let t = base.read();
        let found = t
            .find(tag, |o| Ok(!self.hides(tag, o)? && is_key(o)?))?
            .map(|(_, off)| off);
        t.check_cut()?;
        Ok(found)
    }

    /// While a layer is built: an error if the key (`is_key` confirms a
    /// tag match) has an entry already, put or hidden base entry, for the
    /// entry at `offset`.
    fn refuse_known(
        &self,
        tag: u32,
        offset: u64,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<()> {
        if self.puts.find(tag, &mut is_key)?.is_some() || self.gone.find(tag, is_key)?.is_some() {
            return Err(Error::corruption(
                offset,
                "tail index names a key twice in one namespace",
            ));
        }
        Ok(())
    }

    /// Delete the key whose base entry is `old`.
    fn hide(&mut self, arenas: &Arenas, tag: u32, old: u64) -> Result<()> {
        self.gone.insert_new(arenas, tag, old)
    }
}

/// Puts and deletes over a keydir's base (see the module docs).
pub(crate) struct Layer {
    shards: Box<[RwLock<Delta>]>,
    /// Slot memory of the shards' `puts`.
    puts: Arenas,
    /// Slot memory of the shards' `gone`.
    gone: Arenas,
}

impl Default for Layer {
    fn default() -> Self {
        Layer {
            shards: (0..SHARDS).map(|i| RwLock::new(Delta::new(i))).collect(),
            puts: Arenas::default(),
            gone: Arenas::default(),
        }
    }
}

impl Layer {
    /// Add a key's newest put since the base while the layer is built from
    /// a tail index, in log order. A key the layer has already (`is_key`
    /// confirms a tag match: a put, or a delete that hid a base entry) is
    /// an error: the index it came from is not what it claims.
    pub(crate) fn add_put(
        &self,
        h: KeyHash,
        offset: u64,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<()> {
        let mut d = self.shards[h.shard].write();
        d.refuse_known(h.tag, offset, &mut is_key)?;
        d.puts.insert_new(&self.puts, h.tag, offset)
    }

    /// Add a key's delete since the base (`base`, the shard of `h` of the
    /// keydir this layer will be set on) while the layer is built, in log
    /// order: its entry there, if any, is looked up (`is_key`) and hidden.
    /// A key the layer has already is an error, as for
    /// [`Layer::add_put`]. (A delete of a key the base does not have
    /// leaves nothing to find: a later entry of that key is taken, and,
    /// being newer, is the one that counts anyway.)
    pub(crate) fn add_delete(
        &self,
        h: KeyHash,
        offset: u64,
        base: &RwLock<Table>,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<()> {
        let mut d = self.shards[h.shard].write();
        d.refuse_known(h.tag, offset, &mut is_key)?;
        match d.in_base(base, h.tag, is_key)? {
            Some(old) => d.hide(&self.gone, h.tag, old),
            None => Ok(()),
        }
    }

    /// [`super::Keydir::get`] over `base`, the base shard of `h`.
    pub(crate) fn get(
        &self,
        h: KeyHash,
        base: &RwLock<Table>,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let d = self.shards[h.shard].read();
        if let Some((_, off)) = d.puts.find(h.tag, &mut is_key)? {
            return Ok(Some(off));
        }
        d.in_base(base, h.tag, is_key)
    }

    /// [`super::Keydir::upsert`] over `base`: the put lands in `puts`.
    pub(crate) fn upsert(
        &self,
        h: KeyHash,
        offset: u64,
        base: &RwLock<Table>,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let mut d = self.shards[h.shard].write();
        if d.puts.find(h.tag, &mut is_key)?.is_some() {
            return d.puts.upsert(&self.puts, h.tag, offset, is_key);
        }
        // New to the layer: the base's entry, if any, is what it replaced
        // (and what the put now hides). Looked up before anything changes,
        // so a failed lookup (a damaged or cut checkpoint) changes nothing.
        let old = d.in_base(base, h.tag, &mut is_key)?;
        d.puts.insert_new(&self.puts, h.tag, offset)?;
        Ok(old)
    }

    /// [`super::Keydir::insert_new`]: a key known to be absent.
    pub(crate) fn insert_new(&self, h: KeyHash, offset: u64) -> Result<()> {
        self.shards[h.shard]
            .write()
            .puts
            .insert_new(&self.puts, h.tag, offset)
    }

    /// [`super::Keydir::remove`] over `base`: the key leaves `puts`, and its
    /// base entry, if any, is hidden.
    pub(crate) fn remove(
        &self,
        h: KeyHash,
        base: &RwLock<Table>,
        mut is_key: impl FnMut(u64) -> Result<bool>,
    ) -> Result<Option<u64>> {
        let mut d = self.shards[h.shard].write();
        // A put in the layer hid the base entry without looking it up: look
        // now, first, so a failed lookup changes nothing.
        let old = d.in_base(base, h.tag, &mut is_key)?;
        let put = d.puts.remove(h.tag, is_key)?;
        if let Some(old) = old {
            d.hide(&self.gone, h.tag, old)?;
        }
        Ok(put.or(old))
    }

    /// Forget shard `i`'s changes while `empty_base` empties its base
    /// shard, so no reader sees one emptied without the other (a deleted
    /// key's base entry coming back).
    pub(crate) fn clear_shard(&self, i: usize, empty_base: impl FnOnce()) {
        let mut d = self.shards[i].write();
        empty_base();
        *d = Delta::new(i);
    }

    /// After every shard was cleared: let the arenas start small again.
    pub(crate) fn cleared(&self) {
        self.puts.reset_target();
        self.gone.reset_target();
    }

    /// [`super::Keydir::shard_offsets`] over `base`, shard `i`'s base: its
    /// entries neither deleted nor replaced by a put of the layer, then the
    /// layer's puts. `same(a, b)` tells whether the records at `a` and `b`
    /// have the same key; it is asked only when a base entry's tag is in
    /// `puts`.
    pub(crate) fn offsets(
        &self,
        i: usize,
        base: &RwLock<Table>,
        mut same: impl FnMut(u64, u64) -> Result<bool>,
    ) -> Result<Vec<u64>> {
        let d = self.shards[i].read();
        let t = base.read();
        let mut out = Vec::with_capacity(t.len() + d.puts.len());
        for (tag, off) in t.entries()? {
            if !d.hides(tag, off)? && d.puts.find(tag, |o| same(off, o))?.is_none() {
                out.push(off);
            }
        }
        t.check_cut()?;
        out.extend(d.puts.offsets()?);
        Ok(out)
    }

    /// Slot arenas of the layer, as (address, bytes), for
    /// [`super::Keydir::memory_bytes`].
    pub(crate) fn arenas(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        for s in self.shards.iter() {
            let d = s.read();
            for t in [&d.puts, &d.gone] {
                if let Some(a) = t.arena() {
                    out.push((std::sync::Arc::as_ptr(a) as usize, a.bytes()));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::Keydir;
    use super::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// Keys `k` of a fake log whose hashes collide on purpose: 3 shards,
    /// 5 tags, so most lookups meet entries of other keys with the same tag.
    fn hash(k: u64) -> KeyHash {
        KeyHash {
            shard: (k % 3) as usize,
            tag: (k % 5) as u32,
        }
    }

    /// A fake log: record offset -> key. Offsets only grow.
    struct Log {
        keys: BTreeMap<u64, u64>,
        next: u64,
    }

    impl Log {
        fn append(&mut self, k: u64) -> u64 {
            self.next += 16;
            self.keys.insert(self.next, k);
            self.next
        }
        fn is(&self, k: u64) -> impl FnMut(u64) -> Result<bool> + '_ {
            move |o| Ok(self.keys[&o] == k)
        }
    }

    #[test]
    fn a_layered_keydir_answers_as_its_writes_applied_in_place_would() {
        let mut log = Log {
            keys: BTreeMap::new(),
            next: 4096,
        };
        // The base: keys 0..60 in place.
        let kd = Keydir::default();
        let mut model: BTreeMap<u64, u64> = BTreeMap::new();
        for k in 0..60 {
            let off = log.append(k);
            assert_eq!(kd.upsert(hash(k), off, log.is(k)).unwrap(), None);
            model.insert(k, off);
        }
        // Built from a "tail index": newest puts of 40..70, deletes of 0..10
        // (and of 90, never in the base).
        let layer = Layer::default();
        for k in (40..70).chain(0..10).chain([90]) {
            let off = log.append(k);
            let put = k >= 40 && k != 90;
            if put {
                layer.add_put(hash(k), off, log.is(k)).unwrap();
            } else {
                let base = &kd.shards[hash(k).shard].0;
                layer.add_delete(hash(k), off, base, log.is(k)).unwrap();
            }
            if put {
                model.insert(k, off);
            } else {
                model.remove(&k);
            }
        }
        // A key named twice is refused.
        let again = log.append(45);
        assert!(layer.add_put(hash(45), again, log.is(45)).is_err());
        log.keys.remove(&again);
        // So is one whose delete hid its base entry, put or deleted again.
        let again = log.append(5);
        assert!(layer.add_put(hash(5), again, log.is(5)).is_err());
        let base = &kd.shards[hash(5).shard].0;
        assert!(layer.add_delete(hash(5), again, base, log.is(5)).is_err());
        log.keys.remove(&again);
        assert!(kd.set_layer(layer));
        assert!(!kd.set_layer(Layer::default()));

        let check = |kd: &Keydir, log: &Log, model: &BTreeMap<u64, u64>| {
            for k in 0..100 {
                assert_eq!(
                    kd.get(hash(k), log.is(k)).unwrap(),
                    model.get(&k).copied(),
                    "{k}"
                );
            }
            let mut listed = BTreeSet::new();
            for i in 0..SHARDS {
                for off in kd
                    .shard_offsets(i, |a, b| Ok(log.keys[&a] == log.keys[&b]))
                    .unwrap()
                {
                    assert!(listed.insert(off), "offset {off} listed twice");
                }
            }
            let want: BTreeSet<u64> = model.values().copied().collect();
            assert_eq!(listed, want);
        };
        check(&kd, &log, &model);

        // Later changes (a replay's rest, a follower) go to the layer,
        // returning what each replaced.
        let mut state = 7u64;
        for step in 0..3000u32 {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
            let k = (state >> 33) % 100;
            if (state >> 20).is_multiple_of(3) {
                let got = kd.remove(hash(k), log.is(k)).unwrap();
                assert_eq!(got, model.remove(&k), "remove {k} at {step}");
            } else {
                let off = log.append(k);
                let got = kd.upsert(hash(k), off, log.is(k)).unwrap();
                assert_eq!(got, model.insert(k, off), "upsert {k} at {step}");
            }
            if step.is_multiple_of(500) {
                check(&kd, &log, &model);
            }
        }
        check(&kd, &log, &model);
        // The base was never written: its shards still hold keys 0..60 only.
        for i in 0..SHARDS {
            let t = kd.shards[i].0.read();
            for (_, off) in t.entries().unwrap() {
                assert!(log.keys[&off] < 60 && off < 4096 + 16 * 61);
            }
        }
        // A clear empties both.
        kd.clear();
        model.clear();
        check(&kd, &log, &model);
        let off = log.append(3);
        assert_eq!(kd.upsert(hash(3), off, log.is(3)).unwrap(), None);
        model.insert(3, off);
        check(&kd, &log, &model);
        assert!(kd.image(0, b"", false).is_err());
    }
}
