#!/usr/bin/env python3
"""A generated fleet for the `--fleet` benchmark, over a gen_highstate.py tree.

    python3 gen_fleet.py --minions N --tree DIR [--seed S] --out FILE

Writes FILE as `salt '*' grains.items --out=json --static` prints it: one object mapping each
minion id to grains shaped like a real `grains.items` (about 60 keys), over 5 OS families and
20 role sets, with a unique `id`, `fqdn` and `ipv4` each. Rewrites DIR/srv/top.sls so that the
fleet matters: every minion gets the first group of SLS files (`app0.*`), each role set one
more group (`G@roles:...`), and each OS family a few files (`G@os_family:...`). Also writes
DIR/etc-one/minion: DIR/etc/minion with the first minion's grains as static grains, for
`salt-call --local -c DIR/etc-one state.show_lowstate` (the per-minion side by side).
Standard library only.
"""

import argparse
import json
import os
import random

FAMILIES = [
    ("Debian", "Debian", "12", "bookworm"),
    ("Ubuntu", "Debian", "22.04", "jammy"),
    ("Rocky", "RedHat", "9.3", "Blue Onyx"),
    ("SUSE", "Suse", "15", "SP5"),
    ("FreeBSD", "FreeBSD", "14.0", ""),
]
ROLES = ["web", "db", "cache", "lb", "mon", "mail", "dns", "ci", "vpn", "log"]


def role_sets():
    out = []
    for i in range(20):
        # Ten single roles, then ten distinct pairs.
        out.append([ROLES[i]] if i < 10 else sorted([ROLES[i - 10], ROLES[(i - 7) % 10]]))
    return out


def grains(i, r, sets):
    name, family, release, codename = FAMILIES[i % 5]
    roles = sets[(i // 5) % 20]
    host = f"{roles[0]}{i:05d}"
    fqdn = f"{host}.dc{i % 3}.example.com"
    ip = f"10.{i // 65536 % 256}.{i // 256 % 256}.{i % 256}"
    return {
        "id": fqdn, "fqdn": fqdn, "host": host, "nodename": host, "localhost": host, "domain": f"dc{i % 3}.example.com",
        "fqdns": [fqdn], "ipv4": ["127.0.0.1", ip], "ipv6": ["::1"], "fqdn_ip4": [ip], "fqdn_ip6": [],
        "ip_interfaces": {"lo": ["127.0.0.1", "::1"], "eth0": [ip]}, "ip4_interfaces": {"lo": ["127.0.0.1"], "eth0": [ip]},
        "ip6_interfaces": {"lo": ["::1"], "eth0": []}, "hwaddr_interfaces": {"lo": "00:00:00:00:00:00", "eth0": "52:54:00:%02x:%02x:%02x" % (i // 65536 % 256, i // 256 % 256, i % 256)},
        "dns": {"nameservers": ["10.0.0.2"], "ip4_nameservers": ["10.0.0.2"], "ip6_nameservers": [], "search": ["example.com"], "domain": "", "sortlist": [], "options": []},
        "os": name, "os_family": family, "osrelease": release, "osrelease_info": [int(x) for x in release.split(".") if x.isdigit()],
        "osmajorrelease": int(release.split(".")[0]) if release[0].isdigit() else 0, "oscodename": codename, "osfullname": name,
        "osfinger": f"{name}-{release.split('.')[0]}", "osarch": "amd64", "cpuarch": "x86_64", "kernel": "FreeBSD" if family == "FreeBSD" else "Linux",
        "kernelrelease": "6.1.0-18-amd64", "kernelversion": "#1 SMP", "init": "systemd", "virtual": r.choice(["kvm", "physical", "VMware"]),
        "num_cpus": r.choice([2, 4, 8, 16]), "cpu_model": "Intel(R) Xeon(R) CPU", "cpu_flags": ["fpu", "vme", "de", "pse", "tsc", "msr", "sse", "sse2"],
        "num_gpus": 0, "gpus": [], "mem_total": r.choice([2048, 4096, 16384, 65536]), "swap_total": 1023, "biosversion": "1.16.2",
        "biosreleasedate": "04/01/2014", "manufacturer": "QEMU", "productname": "Standard PC", "serialnumber": f"SN{i:08d}", "uuid": f"{i:08x}-0000-4000-8000-000000000000",
        "machine_id": f"{i:032x}", "path": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin", "pythonversion": [3, 11, 2, "final", 0],
        "pythonexecutable": "/usr/bin/python3", "saltversion": "3008.0", "saltversioninfo": [3008, 0], "shell": "/bin/sh", "locale_info": {"defaultlanguage": "en_US", "defaultencoding": "UTF-8", "detectedencoding": "utf-8", "timezone": "UTC"},
        "selinux": {"enabled": False, "enforced": "Disabled"}, "systemd": {"version": "252", "features": "+PAM +AUDIT"}, "zmqversion": "4.3.4", "disks": ["vda"], "ssds": [], "SSDs": [],
        "lsb_distrib_id": name, "lsb_distrib_release": release, "lsb_distrib_codename": codename, "server_id": 1000000 + i, "master": "salt", "username": "root", "groupname": "root", "uid": 0, "gid": 0, "pid": 1000 + i,
        "roles": roles, "datacenter": f"dc{i % 3}", "rack": f"r{i % 40:02d}",
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--minions", type=int, required=True)
    ap.add_argument("--tree", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    r = random.Random(a.seed)
    sets = role_sets()
    fleet = {}
    for i in range(a.minions):
        g = grains(i, r, sets)
        fleet[g["id"]] = g
    with open(a.out, "w", encoding="utf-8") as fh:
        json.dump(fleet, fh, indent=4)
    srv = os.path.join(a.tree, "srv")
    groups = sorted(int(d[3:]) for d in os.listdir(srv) if d.startswith("app"))
    files = {g: sorted(int(f[1:-4]) for f in os.listdir(os.path.join(srv, f"app{g}"))) for g in groups}
    with open(os.path.join(srv, "top.sls"), "w", encoding="utf-8") as fh:
        fh.write("base:\n  '*':\n")
        fh.writelines(f"    - app{groups[0]}.s{n}\n" for n in files[groups[0]])
        rest = groups[1:] or groups
        for k, roles in enumerate(sets):
            fh.write(f"  'G@roles:{roles[-1]} and G@roles:{roles[0]}':\n    - match: compound\n")
            g = rest[k % len(rest)]
            fh.writelines(f"    - app{g}.s{n}\n" for n in files[g])
        for j, family in enumerate(sorted({f[1] for f in FAMILIES})):
            g = rest[(j * 7) % len(rest)]
            fh.write(f"  'os_family:{family}':\n    - match: grain\n")
            fh.writelines(f"    - app{g}.s{n}\n" for n in files[g][:10])
    first = next(iter(fleet.values()))
    one = os.path.join(a.tree, "etc-one")
    os.makedirs(one, exist_ok=True)
    with open(os.path.join(a.tree, "etc", "minion"), encoding="utf-8") as fh:
        conf = fh.read().replace("grains: {}\n", "").replace("id: bench\n", "")
    with open(os.path.join(one, "minion"), "w", encoding="utf-8") as fh:
        fh.write(conf + f"id: {first['id']}\ngrains: " + json.dumps(first) + "\n")


if __name__ == "__main__":
    main()
