//! Hashing and encoding filters (`salt/utils/hashutils.py`, `uuid_` in `salt/utils/jinja.py`).

use super::args::{invalid, py_type};
use base64::engine::general_purpose::STANDARD as BASE64;
use base64::Engine;
use minijinja::value::{Value, ValueKind};
use minijinja::{Environment, Error};
use sha2::Digest;

pub(super) fn register(env: &mut Environment<'_>) {
    // Hashing and encoding (`salt/utils/hashutils.py`, `uuid_` in `salt/utils/jinja.py`).
    env.add_filter("md5", |v: Value| -> Result<Value, Error> { Ok(Value::from(hex(&md5::Md5::digest(bytes_of(&v)?)))) });
    env.add_filter("sha1", |v: Value| -> Result<Value, Error> { Ok(Value::from(hex(&sha1::Sha1::digest(bytes_of(&v)?)))) });
    env.add_filter("sha256", |v: Value| -> Result<Value, Error> { Ok(Value::from(hex(&sha2::Sha256::digest(bytes_of(&v)?)))) });
    env.add_filter("sha512", |v: Value| -> Result<Value, Error> { Ok(Value::from(hex(&sha2::Sha512::digest(bytes_of(&v)?)))) });
    env.add_filter("base64_encode", |v: Value| -> Result<Value, Error> { Ok(Value::from(BASE64.encode(bytes_of(&v)?))) });
    env.add_filter("base64_decode", base64_decode);
    env.add_filter("uuid", |v: Value| -> Result<Value, Error> { Ok(Value::from(uuid5(bytes_of(&v)?))) });
}

/// `salt.utils.stringutils.to_bytes`: a string's UTF-8 bytes; anything else is a `TypeError`.
fn bytes_of(v: &Value) -> Result<&[u8], Error> {
    match v.kind() {
        ValueKind::String => Ok(v.as_str().unwrap_or_default().as_bytes()),
        ValueKind::Bytes => Ok(v.as_bytes().unwrap_or_default()),
        _ => Err(invalid(format!("expected str, bytes, or bytearray not <class '{}'>", py_type(v)))),
    }
}

/// `hexdigest()`: lowercase hex.
pub(super) fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// `base64_decode` (`salt/utils/hashutils.py`): `base64.b64decode`, which skips characters
/// outside the alphabet, then the text as UTF-8, or the bytes when they are not UTF-8.
fn base64_decode(v: Value) -> Result<Value, Error> {
    let kept: Vec<u8> = bytes_of(&v)?.iter().copied().filter(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')).collect();
    let decoded = BASE64.decode(&kept).map_err(|_| invalid("Incorrect padding"))?;
    Ok(match String::from_utf8(decoded) {
        Ok(text) => Value::from(text),
        Err(e) => Value::from_bytes(e.into_bytes()),
    })
}

/// `uuid` (`salt/utils/jinja.py` `uuid_`): `uuid.uuid5(GLOBAL_UUID, value)`, the name-based
/// UUID from SHA-1 of Salt's namespace and the value.
fn uuid5(name: &[u8]) -> String {
    // `GLOBAL_UUID = uuid.UUID("91633EBF-1C86-5E33-935A-28061F4B480E")`.
    const NAMESPACE: [u8; 16] = [0x91, 0x63, 0x3e, 0xbf, 0x1c, 0x86, 0x5e, 0x33, 0x93, 0x5a, 0x28, 0x06, 0x1f, 0x4b, 0x48, 0x0e];
    let mut hasher = sha1::Sha1::new();
    hasher.update(NAMESPACE);
    hasher.update(name);
    let digest = hasher.finalize();
    let mut b: Vec<u8> = digest[..16].to_vec();
    b[6] = (b[6] & 0x0f) | 0x50;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = hex(&b);
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}
