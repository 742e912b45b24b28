//! At-rest encryption (feature `encrypt`): ciphers, key derivation, the key
//! verification block and per-record sealing. Layouts: docs/FORMAT.md,
//! "Encryption".
//!
//! Every record of an encrypted log is sealed with an AEAD (AES-256-GCM or
//! ChaCha20-Poly1305) under a fresh random 96-bit nonce, with the record's
//! context as associated data: database id, log generation, byte offset,
//! tag byte (kind and flags), namespace and expiry. So a record that is
//! flipped (insert into remove), moved, swapped in from another file or
//! generation, or replayed at another offset fails authentication.

#![cfg_attr(not(feature = "encrypt"), allow(dead_code, unused_imports))]

use std::fmt;

use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::error::{Error, Result};
use crate::format::read_u32;

/// The AEAD cipher of an encrypted database, fixed at creation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Cipher {
    /// AES-256-GCM (the default; fastest with AES-NI).
    #[default]
    Aes256Gcm,
    /// ChaCha20-Poly1305 (fast without AES hardware).
    ChaCha20Poly1305,
}

impl Cipher {
    fn code(self) -> u8 {
        match self {
            Cipher::Aes256Gcm => 1,
            Cipher::ChaCha20Poly1305 => 2,
        }
    }

    fn from_code(c: u8) -> Option<Cipher> {
        match c {
            1 => Some(Cipher::Aes256Gcm),
            2 => Some(Cipher::ChaCha20Poly1305),
            _ => None,
        }
    }
}

/// A key or a passphrase, for opening or (re)keying an encrypted database.
/// Zeroized when dropped; `Debug` never shows it.
#[derive(Clone, Zeroize, ZeroizeOnDrop)]
pub enum EncryptionInput {
    /// A raw 256-bit key.
    Key([u8; 32]),
    /// A passphrase, stretched with Argon2id (salt and costs in the header).
    Passphrase(String),
}

impl fmt::Debug for EncryptionInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EncryptionInput::Key(_) => f.write_str("Key(<redacted>)"),
            EncryptionInput::Passphrase(_) => f.write_str("Passphrase(<redacted>)"),
        }
    }
}

/// Argon2id cost parameters, stored with the salt in the database header so
/// they can be raised later (by `rotate_encryption_key`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KdfParams {
    /// Memory in KiB.
    pub memory_kib: u32,
    /// Passes.
    pub iterations: u32,
    /// Lanes.
    pub parallelism: u32,
}

impl Default for KdfParams {
    /// OWASP's recommendation for Argon2id: 19 MiB, 2 passes, 1 lane.
    fn default() -> Self {
        KdfParams {
            memory_kib: 19 * 1024,
            iterations: 2,
            parallelism: 1,
        }
    }
}

/// The most Argon2id memory a derivation may ask for (4 GiB), passes
/// (100) and lanes (64): the parameters come from the header, which a
/// CRC guards against damage but not against an edit, and unbounded ones
/// made an open abort on a 4 TiB allocation or run for ever.
pub const KDF_LIMITS: KdfParams = KdfParams {
    memory_kib: 4 << 20,
    iterations: 100,
    parallelism: 64,
};

/// Argon2id's own parameters for `p`: refused past [`KDF_LIMITS`], or
/// where Argon2id refuses them (too little memory for the lanes, zero
/// passes, ...).
#[cfg(feature = "encrypt")]
pub(crate) fn argon2_params(p: KdfParams) -> Result<argon2::Params> {
    let l = KDF_LIMITS;
    if p.memory_kib > l.memory_kib || p.iterations > l.iterations || p.parallelism > l.parallelism {
        return Err(Error::InvalidConfig(format!(
            "Argon2id parameters of {} KiB, {} passes and {} lanes are past the limits \
             ({} KiB, {} passes, {} lanes): a damaged or edited header, or a mistake",
            p.memory_kib, p.iterations, p.parallelism, l.memory_kib, l.iterations, l.parallelism
        )));
    }
    argon2::Params::new(p.memory_kib, p.iterations, p.parallelism, Some(32))
        .map_err(|e| Error::InvalidConfig(format!("bad Argon2id parameters: {e}")))
}

/// Offset of the encryption block inside the header page.
pub(crate) const ENC_AT: usize = 1024;
const ENC_MAGIC: [u8; 4] = *b"EENC";
const VERIFY_PLAIN: [u8; 32] = *b"emdb key verification block v1\0\0";
/// Bytes of the encryption block covered by its CRC.
const ENC_LEN: usize = 4 + 1 + 1 + 2 + 12 + 16 + 12 + 48;
/// Nonce reserved for deriving the index hash seed; random record nonces
/// are never allowed to take this value.
const SEED_NONCE: [u8; 12] = [0xff; 12];
/// Bytes a sealed payload adds to the plaintext: nonce and tag.
pub(crate) const SEAL_OVERHEAD: usize = 12 + 16;

/// How the key was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kdf {
    Raw,
    Argon2id(KdfParams),
}

/// The encryption block of the header page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct EncHeader {
    pub cipher: Cipher,
    pub kdf: Kdf,
    pub salt: [u8; 16],
    pub verify_nonce: [u8; 12],
    pub verify: [u8; 48],
}

impl EncHeader {
    /// Encode at `ENC_AT` of a header page.
    pub(crate) fn encode_into(&self, page: &mut [u8]) {
        let b = &mut page[ENC_AT..ENC_AT + ENC_LEN + 4];
        b[..4].copy_from_slice(&ENC_MAGIC);
        b[4] = self.cipher.code();
        let (kdf, p) = match self.kdf {
            Kdf::Raw => (
                0u8,
                KdfParams {
                    memory_kib: 0,
                    iterations: 0,
                    parallelism: 0,
                },
            ),
            Kdf::Argon2id(p) => (1u8, p),
        };
        b[5] = kdf;
        b[6..8].fill(0);
        b[8..12].copy_from_slice(&p.memory_kib.to_le_bytes());
        b[12..16].copy_from_slice(&p.iterations.to_le_bytes());
        b[16..20].copy_from_slice(&p.parallelism.to_le_bytes());
        b[20..36].copy_from_slice(&self.salt);
        b[36..48].copy_from_slice(&self.verify_nonce);
        b[48..96].copy_from_slice(&self.verify);
        let crc = crate::format::crc::crc32(&b[..ENC_LEN]);
        b[ENC_LEN..ENC_LEN + 4].copy_from_slice(&crc.to_le_bytes());
    }

    /// Decode from a header page.
    pub(crate) fn decode(page: &[u8]) -> std::result::Result<EncHeader, &'static str> {
        let b = page
            .get(ENC_AT..ENC_AT + ENC_LEN + 4)
            .ok_or("header page too short")?;
        if b[..4] != ENC_MAGIC {
            return Err("encryption block missing");
        }
        if crate::format::crc::crc32(&b[..ENC_LEN]) != read_u32(b, ENC_LEN).ok_or("short")? {
            return Err("encryption block checksum mismatch");
        }
        let cipher = Cipher::from_code(b[4]).ok_or("unknown cipher")?;
        let params = KdfParams {
            memory_kib: read_u32(b, 8).ok_or("short")?,
            iterations: read_u32(b, 12).ok_or("short")?,
            parallelism: read_u32(b, 16).ok_or("short")?,
        };
        let kdf = match b[5] {
            0 => Kdf::Raw,
            1 => Kdf::Argon2id(params),
            _ => return Err("unknown key derivation"),
        };
        let mut h = EncHeader {
            cipher,
            kdf,
            salt: [0; 16],
            verify_nonce: [0; 12],
            verify: [0; 48],
        };
        h.salt.copy_from_slice(&b[20..36]);
        h.verify_nonce.copy_from_slice(&b[36..48]);
        h.verify.copy_from_slice(&b[48..96]);
        Ok(h)
    }
}

#[cfg(feature = "encrypt")]
mod imp {
    use std::sync::atomic::{AtomicU64, Ordering};

    use aes_gcm::aead::{AeadInPlace, KeyInit};
    use aes_gcm::Aes256Gcm;
    use blake2::digest::consts::{U64, U8};
    use blake2::digest::Mac;
    use blake2::Blake2bMac;
    use chacha20poly1305::ChaCha20Poly1305;
    use parking_lot::Mutex;
    use rand_chacha::ChaCha20Rng;
    use rand_core::{OsRng, RngCore, SeedableRng};

    use super::*;

    enum Aead {
        Aes(Box<Aes256Gcm>),
        ChaCha(Box<ChaCha20Poly1305>),
    }

    /// Keys and context for sealing the records of one log generation.
    pub(crate) struct Crypt {
        aead: Aead,
        cipher: Cipher,
        key: Zeroizing<[u8; 32]>,
        db_id: [u8; 16],
        generation: u64,
        rng: Mutex<ChaCha20Rng>,
        /// Records sealed by this handle.
        pub sealed: AtomicU64,
        /// Keyed seed for the index hash, so index images leak nothing.
        pub hash_seed: u64,
        /// The key of this generation's sealed tail index files: BLAKE2b
        /// keyed with the database key over a label, the database id and
        /// the generation (docs/FORMAT.md, "Tail index file"). It shares
        /// nothing with the record cipher or `hash_seed`.
        tail_key: Zeroizing<[u8; 64]>,
    }

    fn rng_error(e: rand_core::Error) -> Error {
        Error::io(
            "read OS randomness",
            None,
            std::io::Error::other(e.to_string()),
        )
    }

    /// Fill `buf` with OS randomness.
    pub(crate) fn os_random(buf: &mut [u8]) -> Result<()> {
        OsRng.try_fill_bytes(buf).map_err(rng_error)
    }

    fn derive(input: &EncryptionInput, kdf: Kdf, salt: &[u8; 16]) -> Result<Zeroizing<[u8; 32]>> {
        let mut key = Zeroizing::new([0u8; 32]);
        match (input, kdf) {
            (EncryptionInput::Key(k), _) => key.copy_from_slice(k),
            (EncryptionInput::Passphrase(p), Kdf::Argon2id(params)) => {
                let params = super::argon2_params(params)?;
                argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params)
                    .hash_password_into(p.as_bytes(), salt, key.as_mut())
                    .map_err(|e| Error::InvalidConfig(format!("key derivation failed: {e}")))?;
            }
            (EncryptionInput::Passphrase(_), Kdf::Raw) => {
                return Err(Error::EncryptionKeyMismatch {
                    reason: "the database was encrypted with a raw key, not a passphrase".into(),
                })
            }
        }
        Ok(key)
    }

    impl Crypt {
        fn build(
            cipher: Cipher,
            key: Zeroizing<[u8; 32]>,
            db_id: [u8; 16],
            generation: u64,
        ) -> Result<Crypt> {
            let aead = match cipher {
                Cipher::Aes256Gcm => Aead::Aes(Box::new(
                    Aes256Gcm::new_from_slice(key.as_ref())
                        .map_err(|_| Error::InvalidConfig("bad key length".into()))?,
                )),
                Cipher::ChaCha20Poly1305 => Aead::ChaCha(Box::new(
                    ChaCha20Poly1305::new_from_slice(key.as_ref())
                        .map_err(|_| Error::InvalidConfig("bad key length".into()))?,
                )),
            };
            let mut seed = [0u8; 32];
            os_random(&mut seed)?;
            let mut tail_key = Zeroizing::new([0u8; 64]);
            {
                let mut m = <Blake2bMac<U64> as Mac>::new_from_slice(key.as_ref())
                    .map_err(|_| Error::InvalidConfig("bad key length".into()))?;
                m.update(b"emdb-tail-index-key-v1");
                m.update(&db_id);
                m.update(&generation.to_le_bytes());
                tail_key.copy_from_slice(&m.finalize().into_bytes());
            }
            let mut c = Crypt {
                aead,
                cipher,
                key,
                db_id,
                generation,
                rng: Mutex::new(ChaCha20Rng::from_seed(seed)),
                sealed: AtomicU64::new(0),
                hash_seed: 0,
                tail_key,
            };
            seed.zeroize();
            let mut block = [0u8; 16];
            c.seal_raw(&SEED_NONCE, b"emdb-hash-seed", &mut block)?;
            c.hash_seed = u64::from_le_bytes([
                block[0], block[1], block[2], block[3], block[4], block[5], block[6], block[7],
            ]) | 1;
            Ok(c)
        }

        /// Keys for a new database: fresh salt, verification block.
        pub(crate) fn create(
            input: &EncryptionInput,
            cipher: Cipher,
            params: KdfParams,
            db_id: [u8; 16],
        ) -> Result<(Crypt, EncHeader)> {
            let kdf = match input {
                EncryptionInput::Key(_) => Kdf::Raw,
                EncryptionInput::Passphrase(_) => Kdf::Argon2id(params),
            };
            let mut salt = [0u8; 16];
            os_random(&mut salt)?;
            let key = derive(input, kdf, &salt)?;
            let crypt = Crypt::build(cipher, key, db_id, 0)?;
            let mut verify_nonce = [0u8; 12];
            crypt.fresh_nonce(&mut verify_nonce)?;
            let mut verify = [0u8; 48];
            verify[..32].copy_from_slice(&VERIFY_PLAIN);
            let (body, tag) = verify.split_at_mut(32);
            let t = crypt.seal_detached(&verify_nonce, &verify_aad(&db_id), body)?;
            tag.copy_from_slice(&t);
            Ok((
                crypt,
                EncHeader {
                    cipher,
                    kdf,
                    salt,
                    verify_nonce,
                    verify,
                },
            ))
        }

        /// Keys for an existing database; `EncryptionKeyMismatch` if wrong.
        pub(crate) fn open(
            input: &EncryptionInput,
            hdr: &EncHeader,
            db_id: [u8; 16],
            generation: u64,
        ) -> Result<Crypt> {
            let key = derive(input, hdr.kdf, &hdr.salt)?;
            let crypt = Crypt::build(hdr.cipher, key, db_id, generation)?;
            let mut block = hdr.verify;
            let (body, tag) = block.split_at_mut(32);
            let mut t = [0u8; 16];
            t.copy_from_slice(tag);
            crypt
                .open_detached(&hdr.verify_nonce, &verify_aad(&db_id), body, &t)
                .map_err(|_| Error::EncryptionKeyMismatch {
                    reason: "the key or passphrase does not match this database".into(),
                })?;
            Ok(crypt)
        }

        /// The cipher in use.
        pub(crate) fn cipher(&self) -> Cipher {
            self.cipher
        }

        /// The same keys bound to another generation (compaction); the seal
        /// count carries over.
        pub(crate) fn for_generation(&self, generation: u64) -> Result<Crypt> {
            let c = Crypt::build(self.cipher, self.key.clone(), self.db_id, generation)?;
            c.sealed
                .store(self.sealed.load(Ordering::Relaxed), Ordering::Relaxed);
            Ok(c)
        }

        pub(crate) fn fresh_nonce(&self, out: &mut [u8; 12]) -> Result<()> {
            loop {
                self.rng.lock().fill_bytes(out);
                if *out != SEED_NONCE {
                    return Ok(());
                }
            }
        }

        fn seal_raw(&self, nonce: &[u8; 12], aad: &[u8], block: &mut [u8; 16]) -> Result<()> {
            self.seal_detached(nonce, aad, block).map(|_| ())
        }

        fn seal_detached(&self, nonce: &[u8; 12], aad: &[u8], buf: &mut [u8]) -> Result<[u8; 16]> {
            let n = aes_gcm::Nonce::from_slice(nonce);
            let tag = match &self.aead {
                Aead::Aes(a) => a.encrypt_in_place_detached(n, aad, buf),
                Aead::ChaCha(a) => a.encrypt_in_place_detached(n, aad, buf),
            }
            .map_err(|_| Error::InvalidConfig("record too large to encrypt".into()))?;
            let mut t = [0u8; 16];
            t.copy_from_slice(&tag);
            Ok(t)
        }

        fn open_detached(
            &self,
            nonce: &[u8; 12],
            aad: &[u8],
            buf: &mut [u8],
            tag: &[u8; 16],
        ) -> std::result::Result<(), ()> {
            let n = aes_gcm::Nonce::from_slice(nonce);
            let t = aes_gcm::Tag::from_slice(tag);
            match &self.aead {
                Aead::Aes(a) => a.decrypt_in_place_detached(n, aad, buf, t),
                Aead::ChaCha(a) => a.decrypt_in_place_detached(n, aad, buf, t),
            }
            .map_err(|_| ())
        }

        /// Seal a payload in place: `payload` is `nonce(12) | plaintext | tag(16)`
        /// with the plaintext already written.
        pub(crate) fn seal(&self, ctx: &RecordContext, payload: &mut [u8]) -> Result<()> {
            let len = payload.len();
            if len < SEAL_OVERHEAD {
                return Err(Error::corruption(ctx.offset, "sealed payload too short"));
            }
            let mut nonce = [0u8; 12];
            self.fresh_nonce(&mut nonce)?;
            let aad = ctx.aad(&self.db_id, self.generation);
            let (head, rest) = payload.split_at_mut(12);
            head.copy_from_slice(&nonce);
            let (body, tag) = rest.split_at_mut(len - SEAL_OVERHEAD);
            let t = self.seal_detached(&nonce, &aad, body)?;
            tag.copy_from_slice(&t);
            self.sealed.fetch_add(1, Ordering::Relaxed);
            Ok(())
        }

        /// Seal a blob that is not a record (a checkpoint's namespace
        /// table): `nonce(12) | ciphertext | tag(16)`, bound to `aad`.
        pub(crate) fn seal_blob(&self, aad: &[u8], plain: &[u8]) -> Result<Vec<u8>> {
            let mut nonce = [0u8; 12];
            self.fresh_nonce(&mut nonce)?;
            let mut out = Vec::with_capacity(plain.len() + SEAL_OVERHEAD);
            out.extend_from_slice(&nonce);
            out.extend_from_slice(plain);
            let t = self.seal_detached(&nonce, aad, &mut out[12..])?;
            out.extend_from_slice(&t);
            self.sealed.fetch_add(1, Ordering::Relaxed);
            Ok(out)
        }

        /// Authenticate and decrypt a blob made by [`Crypt::seal_blob`]
        /// with the same `aad`; `None` if it fails.
        pub(crate) fn open_blob(&self, aad: &[u8], sealed: &[u8]) -> Option<Vec<u8>> {
            let len = sealed.len();
            if len < SEAL_OVERHEAD {
                return None;
            }
            let mut nonce = [0u8; 12];
            nonce.copy_from_slice(&sealed[..12]);
            let mut tag = [0u8; 16];
            tag.copy_from_slice(&sealed[len - 16..]);
            let mut out = sealed[12..len - 16].to_vec();
            match self.open_detached(&nonce, aad, &mut out, &tag) {
                Ok(()) => Some(out),
                Err(()) => {
                    out.zeroize();
                    None
                }
            }
        }

        /// A sealed tail index's slot hash of `key`: 64 bits of BLAKE2b
        /// keyed with the tail key (a keyed hash: the slots show no key,
        /// and no key can be tested against them without the secret).
        pub(crate) fn tail_hash(&self, key: &[u8]) -> u64 {
            let mut m = <Blake2bMac<U8> as KeyInit>::new(self.tail_key.as_ref().into());
            m.update(b"slot");
            m.update(key);
            u64::from_le_bytes(m.finalize().into_bytes().into())
        }

        /// A sealed tail index's tag over `parts` (a label, the header or a
        /// page, and what binds it), each preceded by its length (u64): 64
        /// bits of BLAKE2b keyed with the tail key.
        pub(crate) fn tail_tag(&self, parts: &[&[u8]]) -> [u8; 8] {
            let mut m = <Blake2bMac<U8> as KeyInit>::new(self.tail_key.as_ref().into());
            for p in parts {
                m.update(&(p.len() as u64).to_le_bytes());
                m.update(p);
            }
            m.finalize().into_bytes().into()
        }

        /// Authenticate and decrypt a sealed payload into `out` (the plaintext).
        pub(crate) fn open_record(
            &self,
            ctx: &RecordContext,
            payload: &[u8],
            out: &mut Vec<u8>,
        ) -> Result<()> {
            let len = payload.len();
            if len < SEAL_OVERHEAD {
                return Err(Error::corruption(ctx.offset, "sealed payload too short"));
            }
            let mut nonce = [0u8; 12];
            nonce.copy_from_slice(&payload[..12]);
            let mut tag = [0u8; 16];
            tag.copy_from_slice(&payload[len - 16..]);
            let need = len - SEAL_OVERHEAD;
            if out.capacity() < need {
                // Zeroed before it grows: a reallocation would leave the
                // record it held, decrypted, in freed memory (callers
                // reuse one buffer across records).
                out.zeroize();
                out.reserve(need);
            }
            out.clear();
            out.extend_from_slice(&payload[12..len - 16]);
            let aad = ctx.aad(&self.db_id, self.generation);
            self.open_detached(&nonce, &aad, out, &tag).map_err(|_| {
                out.zeroize();
                Error::corruption(
                    ctx.offset,
                    "record failed authentication (tampered, moved, or from another database)",
                )
            })
        }
    }
}

#[cfg(feature = "encrypt")]
pub(crate) use imp::Crypt;

/// Stand-in when the crate is built without `encrypt`: never constructed.
#[cfg(not(feature = "encrypt"))]
pub(crate) enum Crypt {}

#[cfg(not(feature = "encrypt"))]
impl Crypt {
    pub(crate) fn seal(&self, _ctx: &RecordContext, _payload: &mut [u8]) -> Result<()> {
        match *self {}
    }
    pub(crate) fn open_record(&self, _: &RecordContext, _: &[u8], _: &mut Vec<u8>) -> Result<()> {
        match *self {}
    }
    pub(crate) fn for_generation(&self, _: u64) -> Result<Crypt> {
        match *self {}
    }
    pub(crate) fn seal_blob(&self, _: &[u8], _: &[u8]) -> Result<Vec<u8>> {
        match *self {}
    }
    pub(crate) fn open_blob(&self, _: &[u8], _: &[u8]) -> Option<Vec<u8>> {
        match *self {}
    }
    pub(crate) fn tail_hash(&self, _: &[u8]) -> u64 {
        match *self {}
    }
    pub(crate) fn tail_tag(&self, _: &[&[u8]]) -> [u8; 8] {
        match *self {}
    }
    pub(crate) fn fresh_nonce(&self, _: &mut [u8; 12]) -> Result<()> {
        match *self {}
    }
}

/// What a record's seal is bound to (besides the database id and generation).
pub(crate) struct RecordContext {
    pub offset: u64,
    pub tag: u8,
    pub ns: u32,
    pub expires_at: u64,
}

impl RecordContext {
    fn aad(&self, db_id: &[u8; 16], generation: u64) -> [u8; 56] {
        let mut a = [0u8; 56];
        a[..11].copy_from_slice(b"emdb-rec-v1");
        a[11..27].copy_from_slice(db_id);
        a[27..35].copy_from_slice(&generation.to_le_bytes());
        a[35..43].copy_from_slice(&self.offset.to_le_bytes());
        a[43] = self.tag;
        a[44..48].copy_from_slice(&self.ns.to_le_bytes());
        a[48..56].copy_from_slice(&self.expires_at.to_le_bytes());
        a
    }
}

fn verify_aad(db_id: &[u8; 16]) -> [u8; 32] {
    let mut a = [0u8; 32];
    a[..16].copy_from_slice(b"emdb-key-verify\0");
    a[16..].copy_from_slice(db_id);
    a
}
