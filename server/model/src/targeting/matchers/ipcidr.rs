//! The `ipcidr` matcher (`salt/matchers/ipcidr_match.py`): an address or a strict network
//! against the minion's `ipv4` / `ipv6` grains, with Python `ipaddress` parsing rules.

use std::net::{Ipv4Addr, Ipv6Addr};

use ipnetwork::{IpNetwork, Ipv4Network, Ipv6Network};
use serde_json::Value;

use super::{py, quote, MatchContext, MatchError, MatchErrorKind, MatchOutcome, Returned};

/// A target parsed as `ipaddress.ip_address` or, failing that, `ipaddress.ip_network`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IpTarget {
    /// An address; `scope` is an IPv6 zone (`fe80::1%eth0`), part of its string form.
    Address { addr: std::net::IpAddr, scope: Option<String> },
    /// A network whose host bits are all zero.
    Network(IpNetwork),
}

impl IpTarget {
    /// `ipaddress.ip_address(tgt)`, else `ipaddress.ip_network(tgt)` (strict).
    pub fn parse(tgt: &str) -> Result<IpTarget, String> {
        if let Some(t) = parse_address(tgt) {
            return Ok(t);
        }
        parse_network(tgt)
    }

    /// `"ipv4"` or `"ipv6"`: the grain the target is compared with.
    pub fn proto(&self) -> &'static str {
        let v4 = match self {
            IpTarget::Address { addr, .. } => addr.is_ipv4(),
            IpTarget::Network(n) => n.is_ipv4(),
        };
        if v4 {
            "ipv4"
        } else {
            "ipv6"
        }
    }
}

/// `ipcidr_match.match(tgt)`. An address matches by exact string membership in the grain;
/// a network matches when any grain address lies inside it. An invalid target makes Salt
/// return `[]`, which is falsy.
pub fn matches(ctx: &MatchContext, target: &Value) -> MatchOutcome {
    let shown = py::str_of(target);
    let parsed = match target {
        Value::String(s) => IpTarget::parse(s),
        // `ip_address` takes integers (and so booleans) as packed addresses.
        Value::Bool(b) => Ok(int_address(u128::from(*b))),
        Value::Number(n) => match n.as_u64() {
            Some(u) => Ok(int_address(u128::from(u))),
            None => Err(format!("{shown} does not appear to be an IPv4 or IPv6 address")),
        },
        _ => Err(format!("{} does not appear to be an IPv4 or IPv6 network", py::repr(target))),
    };
    let tgt = match parsed {
        Ok(t) => t,
        Err(e) => {
            let mut out = MatchOutcome::failed(
                "ipcidr",
                shown.clone(),
                MatchError::logged(MatchErrorKind::InvalidCidr, format!("invalid IP/CIDR target {}: {e}", quote(&shown))),
            );
            out.returned = Returned::EmptyList;
            return out;
        }
    };
    let proto = tgt.proto();
    let Some(grain) = ctx.grains.get(proto) else {
        return MatchOutcome::new("ipcidr", shown, false, format!("grain `{proto}` is missing from the profile"));
    };
    match &tgt {
        IpTarget::Address { addr, scope } => {
            let text = address_string(addr, scope.as_deref());
            let matched = match grain {
                Value::Array(items) => items.iter().any(|v| v.as_str() == Some(text.as_str())),
                Value::String(s) => s.contains(&text),
                Value::Object(m) => m.contains_key(&text),
                other => {
                    return MatchOutcome::failed(
                        "ipcidr",
                        shown,
                        MatchError::raised(MatchErrorKind::InvalidData, format!("grain `{proto}` is {}, not a list (Salt raises TypeError)", py::repr(other))),
                    )
                }
            };
            let verb = if matched { "lists" } else { "does not list" };
            MatchOutcome::new("ipcidr", shown, matched, format!("grain `{proto}` {} {verb} address {}", quote(&py::str_of(grain)), quote(&text)))
        }
        IpTarget::Network(net) => {
            let items: Vec<&Value> = match grain {
                Value::Array(items) => items.iter().collect(),
                Value::Null => {
                    // `in_subnet(cidr, None)` tests the machine's own interfaces instead.
                    return MatchOutcome::failed(
                        "ipcidr",
                        shown,
                        MatchError::logged(MatchErrorKind::InvalidData, format!("grain `{proto}` is None, so Salt would test the host's own interfaces")),
                    );
                }
                other => vec![other],
            };
            for item in items {
                let addr = match item_address(item) {
                    Ok(a) => a,
                    Err(e) => {
                        return MatchOutcome::failed(
                            "ipcidr",
                            shown,
                            MatchError::raised(
                                MatchErrorKind::InvalidData,
                                format!("grain `{proto}` holds {}, which is not an address: {e} (Salt raises ValueError)", py::repr(item)),
                            ),
                        )
                    }
                };
                if net.contains(addr) {
                    return MatchOutcome::new(
                        "ipcidr",
                        shown,
                        true,
                        format!("grain `{proto}` address {} is in {}", quote(&py::str_of(item)), quote(&network_string(net))),
                    );
                }
            }
            MatchOutcome::new(
                "ipcidr",
                shown,
                false,
                format!("no address of grain `{proto}` {} is in {}", quote(&py::str_of(grain)), quote(&network_string(net))),
            )
        }
    }
}

/// A packed integer address: IPv4 below 2**32, else IPv6.
fn int_address(n: u128) -> IpTarget {
    let addr = if n <= u128::from(u32::MAX) { std::net::IpAddr::V4(Ipv4Addr::from(n as u32)) } else { std::net::IpAddr::V6(Ipv6Addr::from(n)) };
    IpTarget::Address { addr, scope: None }
}

/// `ipaddress.ip_address(item)` for a grain value.
fn item_address(item: &Value) -> Result<std::net::IpAddr, String> {
    match item {
        Value::String(s) => match parse_address(s) {
            Some(IpTarget::Address { addr, .. }) => Ok(addr),
            _ => Err(format!("{} does not appear to be an IPv4 or IPv6 address", py::repr(item))),
        },
        Value::Bool(b) => Ok(std::net::IpAddr::V4(Ipv4Addr::from(u32::from(*b)))),
        Value::Number(n) => match n.as_u64() {
            Some(u) => match int_address(u128::from(u)) {
                IpTarget::Address { addr, .. } => Ok(addr),
                IpTarget::Network(_) => Err("not an address".into()),
            },
            None => Err(format!("{} does not appear to be an IPv4 or IPv6 address", py::repr(item))),
        },
        other => Err(format!("{} does not appear to be an IPv4 or IPv6 address", py::repr(other))),
    }
}

fn parse_address(s: &str) -> Option<IpTarget> {
    if let Ok(v4) = parse_v4(s) {
        return Some(IpTarget::Address { addr: std::net::IpAddr::V4(v4), scope: None });
    }
    let (v6, scope) = parse_v6_scoped(s).ok()?;
    Some(IpTarget::Address { addr: std::net::IpAddr::V6(v6), scope })
}

/// `IPv4Address(s)`: four decimal octets, no leading zeros, no `/`.
fn parse_v4(s: &str) -> Result<Ipv4Addr, String> {
    if s.is_empty() {
        return Err("Address cannot be empty".into());
    }
    if s.contains('/') {
        return Err(format!("Unexpected '/' in {}", py::repr_str(s)));
    }
    let octets: Vec<&str> = s.split('.').collect();
    if octets.len() != 4 {
        return Err(format!("Expected 4 octets in {}", py::repr_str(s)));
    }
    let mut out = [0u8; 4];
    for (i, o) in octets.iter().enumerate() {
        if o.is_empty() {
            return Err(format!("Empty octet not permitted in {}", py::repr_str(s)));
        }
        if !o.bytes().all(|b| b.is_ascii_digit()) || o.len() > 3 {
            return Err(format!("Only decimal digits permitted in {}", py::repr_str(o)));
        }
        if *o != "0" && o.starts_with('0') {
            return Err(format!("Leading zeros are not permitted in {}", py::repr_str(o)));
        }
        let v: u32 = o.parse().map_err(|_| "bad octet".to_string())?;
        if v > 255 {
            return Err(format!("Octet {v} (> 255) not permitted"));
        }
        out[i] = v as u8;
    }
    Ok(Ipv4Addr::from(out))
}

/// `IPv6Address(s)`: the address and its optional `%scope`.
fn parse_v6_scoped(s: &str) -> Result<(Ipv6Addr, Option<String>), String> {
    if s.contains('/') {
        return Err(format!("Unexpected '/' in {}", py::repr_str(s)));
    }
    let (addr, scope) = match s.split_once('%') {
        None => (s, None),
        Some((a, sc)) => {
            if sc.is_empty() || sc.contains('%') {
                return Err(format!("Invalid IPv6 address: {}", py::repr_str(s)));
            }
            (a, Some(sc.to_string()))
        }
    };
    Ok((parse_v6(addr)?, scope))
}

/// `IPv6Address._ip_int_from_string`.
fn parse_v6(s: &str) -> Result<Ipv6Addr, String> {
    if s.is_empty() {
        return Err("Address cannot be empty".into());
    }
    let mut parts: Vec<String> = s.split(':').map(str::to_string).collect();
    if parts.len() < 3 {
        return Err(format!("At least 3 parts expected in {}", py::repr_str(s)));
    }
    if parts.last().is_some_and(|p| p.contains('.')) {
        let last = parts.pop().unwrap_or_default();
        let v4 = u32::from(parse_v4(&last)?);
        parts.push(format!("{:x}", (v4 >> 16) & 0xffff));
        parts.push(format!("{:x}", v4 & 0xffff));
    }
    if parts.len() > 9 {
        return Err(format!("At most 8 colons permitted in {}", py::repr_str(s)));
    }
    let mut skip_index = None;
    for (i, p) in parts.iter().enumerate().take(parts.len() - 1).skip(1) {
        if p.is_empty() {
            if skip_index.is_some() {
                return Err(format!("At most one '::' permitted in {}", py::repr_str(s)));
            }
            skip_index = Some(i);
        }
    }
    let (parts_hi, parts_lo, skipped) = match skip_index {
        Some(si) => {
            let mut hi = si;
            let mut lo = parts.len() - si - 1;
            if parts[0].is_empty() {
                hi -= 1;
                if hi > 0 {
                    return Err("Leading ':' only permitted as part of '::'".into());
                }
            }
            if parts[parts.len() - 1].is_empty() {
                lo -= 1;
                if lo > 0 {
                    return Err("Trailing ':' only permitted as part of '::'".into());
                }
            }
            if hi + lo >= 8 {
                return Err("Expected at most 7 other parts with '::'".into());
            }
            (hi, lo, 8 - (hi + lo))
        }
        None => {
            if parts.len() != 8 {
                return Err("Exactly 8 parts expected without '::'".into());
            }
            if parts[0].is_empty() {
                return Err("Leading ':' only permitted as part of '::'".into());
            }
            if parts[7].is_empty() {
                return Err("Trailing ':' only permitted as part of '::'".into());
            }
            (8, 0, 0)
        }
    };
    let hextet = |p: &str| -> Result<u128, String> {
        if p.is_empty() || p.len() > 4 || !p.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!("invalid hextet {}", py::repr_str(p)));
        }
        u128::from_str_radix(p, 16).map_err(|e| e.to_string())
    };
    let mut n: u128 = 0;
    for p in &parts[..parts_hi] {
        n = (n << 16) | hextet(p)?;
    }
    n = n.checked_shl(16 * skipped as u32).unwrap_or(0);
    for p in &parts[parts.len() - parts_lo..] {
        n = (n << 16) | hextet(p)?;
    }
    Ok(Ipv6Addr::from(n))
}

/// `ipaddress.ip_network(s)` with `strict=True`.
fn parse_network(s: &str) -> Result<IpTarget, String> {
    let bad = || format!("{} does not appear to be an IPv4 or IPv6 network", py::repr_str(s));
    let pieces: Vec<&str> = s.split('/').collect();
    if pieces.len() > 2 {
        return Err(bad());
    }
    let addr = pieces[0];
    let mask = pieces.get(1).copied();
    if let Ok(a) = parse_v4(addr) {
        let prefix = match mask {
            None => 32,
            Some(m) => v4_prefix(m).ok_or_else(bad)?,
        };
        let net = Ipv4Network::new(a, prefix).map_err(|_| bad())?;
        if net.network() != a {
            return Err(format!("{s} has host bits set"));
        }
        return Ok(IpTarget::Network(IpNetwork::V4(net)));
    }
    if let Ok((a, _scope)) = parse_v6_scoped(addr) {
        let prefix = match mask {
            None => 128,
            Some(m) => prefix_number(m, 128).ok_or_else(bad)?,
        };
        let net = Ipv6Network::new(a, prefix).map_err(|_| bad())?;
        if net.network() != a {
            return Err(format!("{s} has host bits set"));
        }
        return Ok(IpTarget::Network(IpNetwork::V6(net)));
    }
    Err(bad())
}

/// `_prefix_from_prefix_string`: ASCII digits only (leading zeros allowed), within range.
fn prefix_number(m: &str, max: u8) -> Option<u8> {
    if m.is_empty() || !m.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digits = m.trim_start_matches('0');
    if digits.len() > 3 {
        return None;
    }
    let v: u32 = if digits.is_empty() { 0 } else { digits.parse().ok()? };
    (v <= u32::from(max)).then_some(v as u8)
}

/// An IPv4 mask: a prefix length, a netmask (`255.255.0.0`) or a hostmask (`0.0.255.255`).
fn v4_prefix(m: &str) -> Option<u8> {
    if let Some(p) = prefix_number(m, 32) {
        return Some(p);
    }
    let n = u32::from(parse_v4(m).ok()?);
    prefix_from_int(n).or_else(|| prefix_from_int(!n))
}

/// `_prefix_from_ip_int`: the prefix length of a netmask, `None` if the ones are not leading.
fn prefix_from_int(n: u32) -> Option<u8> {
    let n = u64::from(n);
    let trailing = if n == 0 { 32 } else { u64::from(n.trailing_zeros()) };
    let prefix = 32 - trailing;
    let leading = n >> trailing;
    let ones = (1u64 << prefix) - 1;
    (leading == ones).then_some(prefix as u8)
}

/// `str(IPv4Address)` / `str(IPv6Address)`: Python's compressed form (the longest run of two
/// or more zero hextets becomes `::`), with no special form for IPv4-mapped addresses.
pub(crate) fn address_string(addr: &std::net::IpAddr, scope: Option<&str>) -> String {
    match addr {
        std::net::IpAddr::V4(a) => a.to_string(),
        std::net::IpAddr::V6(a) => {
            let segs = a.segments();
            let (mut best_start, mut best_len) = (None, 0);
            let mut i = 0;
            while i < 8 {
                if segs[i] == 0 {
                    let start = i;
                    while i < 8 && segs[i] == 0 {
                        i += 1;
                    }
                    if i - start > best_len {
                        best_len = i - start;
                        best_start = Some(start);
                    }
                } else {
                    i += 1;
                }
            }
            let hex: Vec<String> = segs.iter().map(|s| format!("{s:x}")).collect();
            let mut out = match best_start {
                Some(start) if best_len > 1 => {
                    let head = hex[..start].join(":");
                    let tail = hex[start + best_len..].join(":");
                    format!("{head}::{tail}")
                }
                _ => hex.join(":"),
            };
            if let Some(sc) = scope {
                out.push('%');
                out.push_str(sc);
            }
            out
        }
    }
}

fn network_string(net: &IpNetwork) -> String {
    format!("{}/{}", address_string(&net.network(), None), net.prefix())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ctx_grains() -> Value {
        json!({"ipv4": ["127.0.0.1", "10.1.2.3"], "ipv6": ["::1"]})
    }

    // `salt/matchers/ipcidr_match.py` truth table, checked against Salt 3008; an invalid target returns `[]`.
    #[test]
    fn ipcidr_truth_table() {
        let g = ctx_grains();
        let ctx = MatchContext::new("m", &g, &g);
        let rows = [
            ("10.1.0.0/16", Some(true)),
            ("10.1.2.3/16", None),
            ("::/0", Some(true)),
            ("garbage", None),
            ("10.1.2.3", Some(true)),
            ("10.1.2.4", Some(false)),
            ("::1", Some(true)),
            ("0:0:0:0:0:0:0:1", Some(true)),
            ("192.168.0.0/16", Some(false)),
            ("10.0.0.0/255.0.0.0", Some(true)),
            ("10.0.0.0/0.255.255.255", Some(true)),
            ("010.1.2.3", None),
            ("10.1.2.3/33", None),
        ];
        for (tgt, want) in rows {
            let out = matches(&ctx, &json!(tgt));
            match want {
                Some(w) => {
                    assert_eq!(out.matched, w, "{tgt}: {}", out.explanation);
                    assert!(out.errors.is_empty(), "{tgt}");
                }
                None => {
                    assert!(!out.matched, "{tgt}");
                    assert_eq!(out.returned, Returned::EmptyList, "{tgt}");
                    assert_eq!(out.errors[0].kind, MatchErrorKind::InvalidCidr);
                }
            }
        }
    }

    #[test]
    fn ipcidr_grain_shapes() {
        // A v6 target against a profile without `ipv6` is False; an invalid grain raises.
        let g = json!({"ipv4": ["10.0.0.1", "bogus"]});
        let ctx = MatchContext::new("m", &g, &g);
        assert!(!matches(&ctx, &json!("::/0")).matched);
        assert!(matches(&ctx, &json!("10.0.0.0/8")).matched);
        assert!(matches(&ctx, &json!("192.168.0.0/16")).is_fatal());
        // A string grain is one address for networks and a substring test for addresses.
        let g = json!({"ipv4": "10.0.0.10"});
        let ctx = MatchContext::new("m", &g, &g);
        assert!(matches(&ctx, &json!("10.0.0.1")).matched);
        assert!(matches(&ctx, &json!("10.0.0.0/24")).matched);
    }

    #[test]
    fn python_address_strings() {
        let s = |t: &str| match IpTarget::parse(t) {
            Ok(IpTarget::Address { addr, scope }) => address_string(&addr, scope.as_deref()),
            other => format!("{other:?}"),
        };
        assert_eq!(s("::ffff:1.2.3.4"), "::ffff:102:304");
        assert_eq!(s("::1.2.3.4"), "::102:304");
        assert_eq!(s("fe80::1%eth0"), "fe80::1%eth0");
        assert_eq!(s("1:0:0:1:0:0:0:1"), "1:0:0:1::1");
        assert_eq!(s("1:0:1:1:1:1:1:1"), "1:0:1:1:1:1:1:1");
        assert_eq!(s("2001:DB8::1"), "2001:db8::1");
    }
}
