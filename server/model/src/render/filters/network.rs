//! The address filters of `salt/utils/network.py` (`is_ip`, `ipaddr`, `ipwrap`, ...).

use super::args::{data, invalid};
use crate::render::mutable::from_json;
use minijinja::value::Value;
use minijinja::{Environment, Error};
use serde_json::Value as J;

pub(super) fn register(env: &mut Environment<'_>) {
    // `salt/utils/network.py`: whether the text is an IP address (or an interface such as
    // `10.0.0.1/24`) of the version, and IPv6 addresses wrapped in brackets.
    env.add_filter("is_ip", |v: Value, options: Option<String>| is_ip(&v, None, options.as_deref()));
    env.add_filter("is_ipv4", |v: Value, options: Option<String>| is_ip(&v, Some(4), options.as_deref()));
    env.add_filter("is_ipv6", |v: Value, options: Option<String>| is_ip(&v, Some(6), options.as_deref()));
    env.add_filter("ipwrap", ipwrap);
    env.add_filter("ipaddr", |v: Value, options: Option<String>| ip_filter(&v, None, options.as_deref()));
    env.add_filter("ipv4", |v: Value, options: Option<String>| ip_filter(&v, Some(4), options.as_deref()));
    env.add_filter("ipv6", |v: Value, options: Option<String>| ip_filter(&v, Some(6), options.as_deref()));
}

/// An address as `ipaddress.ip_address` reads it, else an interface (`10.0.0.1/24`, a netmask
/// too) as `ip_interface` reads it, with its prefix length.
fn ip_of(text: &str) -> Option<(std::net::IpAddr, Option<u8>)> {
    if let Ok(ip) = text.parse::<std::net::IpAddr>() {
        return Some((ip, None));
    }
    text.parse::<ipnetwork::IpNetwork>().ok().map(|n| (n.ip(), Some(n.prefix())))
}

/// `str()` of an address as Python's `ipaddress` writes it: IPv6 in lowercase hex with the
/// longest run of two or more zero groups (the first of equal ones) as `::`, an IPv4-mapped
/// one too (`::ffff:102:304`, where Rust writes `::ffff:1.2.3.4`).
fn ip_str(ip: std::net::IpAddr) -> String {
    let std::net::IpAddr::V6(a) = ip else { return ip.to_string() };
    let groups = a.segments();
    let (mut best, mut best_len, mut run, mut run_len) = (0, 0, 0, 0);
    for (i, g) in groups.iter().enumerate() {
        if *g == 0 {
            if run_len == 0 {
                run = i;
            }
            run_len += 1;
            if run_len > best_len {
                (best, best_len) = (run, run_len);
            }
        } else {
            run_len = 0;
        }
    }
    let hex = |gs: &[u16]| gs.iter().map(|g| format!("{g:x}")).collect::<Vec<_>>().join(":");
    if best_len < 2 {
        return hex(&groups);
    }
    format!("{}::{}", hex(&groups[..best]), hex(&groups[best + best_len..]))
}

/// Whether `ip` is in one of `nets` (CIDR text).
fn in_nets(ip: std::net::IpAddr, nets: &[&str]) -> bool {
    nets.iter().any(|n| n.parse::<ipnetwork::IpNetwork>().is_ok_and(|n| n.contains(ip)))
}

/// `_ip_options` (`salt/utils/network.py`) over Python 3.11's `ipaddress` properties, which
/// look at the address (of an interface too).
fn ip_passes(ip: std::net::IpAddr, option: &str) -> bool {
    use std::net::IpAddr::{V4, V6};
    // `_IPv4Constants` / `_IPv6Constants` of the Python Salt 3008.4 runs on (3.11).
    const PRIVATE_V4: &[&str] = &[
        "0.0.0.0/8",
        "10.0.0.0/8",
        "127.0.0.0/8",
        "169.254.0.0/16",
        "172.16.0.0/12",
        "192.0.0.0/29",
        "192.0.0.170/31",
        "192.0.2.0/24",
        "192.168.0.0/16",
        "198.18.0.0/15",
        "198.51.100.0/24",
        "203.0.113.0/24",
        "240.0.0.0/4",
        "255.255.255.255/32",
    ];
    const PRIVATE_V6: &[&str] =
        &["::1/128", "::/128", "::ffff:0:0/96", "100::/64", "2001::/23", "2001:2::/48", "2001:db8::/32", "2001:10::/28", "fc00::/7", "fe80::/10"];
    const RESERVED_V6: &[&str] = &[
        "::/8", "100::/8", "200::/7", "400::/6", "800::/5", "1000::/4", "4000::/3", "6000::/3", "8000::/3", "a000::/3", "c000::/3", "e000::/4", "f000::/5",
        "f800::/6", "fe00::/9",
    ];
    let private = |ip: std::net::IpAddr| match ip {
        V4(_) => in_nets(ip, PRIVATE_V4),
        // An IPv4-mapped address is private as its IPv4 address is.
        V6(a) => match a.to_ipv4_mapped() {
            Some(v4) => in_nets(V4(v4), PRIVATE_V4),
            None => in_nets(ip, PRIVATE_V6),
        },
    };
    match (option, ip) {
        // `_ip_options_global` is `not ip_obj.is_private` (so 100.64.0.0/10 counts).
        ("global" | "public", _) => !private(ip),
        ("private", _) => private(ip),
        ("reserved", V4(_)) => in_nets(ip, &["240.0.0.0/4"]),
        ("reserved", V6(_)) => in_nets(ip, RESERVED_V6),
        ("site-local" | "sl" | "site_local", V4(_)) => false,
        ("site-local" | "sl" | "site_local", V6(_)) => in_nets(ip, &["fec0::/10"]),
        ("loopback" | "lo", ip) => ip.is_loopback(),
        ("multicast", ip) => ip.is_multicast(),
        ("unspecified", ip) => ip.is_unspecified(),
        ("link-local" | "linklocal" | "ll" | "link_local", V4(a)) => a.is_link_local(),
        ("link-local" | "linklocal" | "ll" | "link_local", V6(a)) => a.is_unicast_link_local(),
        // Salt ignores an option it does not know.
        _ => true,
    }
}

/// `_is_ipv(ip_addr, version, options)` (`salt/utils/network.py`): `str()` of the address or
/// interface when it is one of the version (any, for `None`) and passes every test `options`
/// names, else `None`. `ipaddress.ip_address` takes an integer too: IPv4 below 2**32.
fn ipv(v: &J, version: Option<u8>, options: Option<&str>) -> Option<String> {
    let (ip, prefix) = match v {
        J::String(s) => ip_of(s)?,
        J::Number(n) if !n.is_f64() => match u32::try_from(n.as_u64()?) {
            Ok(small) => (std::net::IpAddr::V4(small.into()), None),
            Err(_) => (std::net::IpAddr::V6(u128::from(n.as_u64()?).into()), None),
        },
        _ => return None,
    };
    if version.is_some_and(|want| want != if ip.is_ipv4() { 4 } else { 6 }) {
        return None;
    }
    if !options.unwrap_or("").split(',').map(str::trim).all(|o| ip_passes(ip, o)) {
        return None;
    }
    Some(match prefix {
        Some(p) => format!("{}/{p}", ip_str(ip)),
        None => ip_str(ip),
    })
}

/// `is_ip_filter`, `is_ipv4_filter`, `is_ipv6_filter`: whether [`ipv`] finds an address.
fn is_ip(v: &Value, version: Option<u8>, options: Option<&str>) -> Result<bool, Error> {
    let d = data(v)?;
    Ok(match version {
        Some(_) => ipv(&d, version, options).is_some(),
        None => ipv(&d, Some(4), options).is_some() || ipv(&d, Some(6), options).is_some(),
    })
}

/// `ipv4`, `ipv6` (`_ipv_filter`) and `ipaddr` (`salt/utils/network.py`): for a string its
/// address of the version (`None` when it is none), for a list those of its items that are,
/// anything else `None`; `ipaddr` is the IPv4 answer, else the IPv6 one, and for a list both.
fn ip_filter(v: &Value, version: Option<u8>, options: Option<&str>) -> Result<Value, Error> {
    let d = data(v)?;
    let one = |version: u8| -> Option<J> {
        match &d {
            J::String(_) => Some(ipv(&d, Some(version), options).map_or(J::Null, J::String)),
            J::Array(items) => Some(J::Array(items.iter().filter_map(|x| ipv(x, Some(version), options).map(J::String)).collect())),
            _ => None,
        }
    };
    let out = match version {
        Some(ver) => one(ver).unwrap_or(J::Null),
        None => match (one(4), one(6)) {
            (Some(J::Array(mut a)), Some(J::Array(b))) => {
                a.extend(b);
                J::Array(a)
            }
            // `ipv4_obj or ipv6_obj`.
            (Some(a), Some(b)) => {
                if crate::py::builtins::truthy(&a) {
                    a
                } else {
                    b
                }
            }
            _ => J::Null,
        },
    };
    Ok(from_json(&out))
}

/// `ipwrap` (`salt/utils/network.py`): an IPv6 address (or each in a list) as
/// `ip_bracket` writes it, `[` its compressed form `]`; anything else as it is.
fn ipwrap(v: Value) -> Result<Value, Error> {
    let wrap = |item: &J| -> Result<J, Error> {
        let J::String(s) = item else { return Ok(item.clone()) };
        if !matches!(ip_of(s), Some((std::net::IpAddr::V6(_), _))) {
            return Ok(item.clone());
        }
        // `ip_bracket`: `ipaddress.ip_address` of the text without brackets.
        let bare = s.trim_start_matches('[').trim_end_matches(']');
        match bare.parse::<std::net::IpAddr>() {
            Ok(a @ std::net::IpAddr::V6(_)) => Ok(J::String(format!("[{}]", ip_str(a)))),
            Ok(a) => Ok(J::String(a.to_string())),
            Err(_) => Err(invalid(format!("{} does not appear to be an IPv4 or IPv6 address", crate::py::builtins::repr_str(bare)))),
        }
    };
    match data(&v)? {
        J::Array(items) => Ok(from_json(&J::Array(items.iter().map(wrap).collect::<Result<_, _>>()?))),
        other => Ok(from_json(&wrap(&other)?)),
    }
}
