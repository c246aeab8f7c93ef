#!/usr/bin/env bash
# Starts a throwaway PostgreSQL and MariaDB on loopback for the ext_pillar suite, each with a
# database `salt` and a user `salt` whose password is `s3cret-pw` (the tests check it never
# shows up in salt-analyzer's output). Usage: source servers.sh; start_servers DIR; ...;
# stop_servers. Sets PG_PORT and MY_PORT. Installs the Debian packages when they are missing.

PW=s3cret-pw

need_packages() {
  local missing=()
  ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1 || missing+=(postgresql)
  command -v mariadbd >/dev/null 2>&1 || missing+=(mariadb-server)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "extpillar: installing ${missing[*]}" >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}" >&2 || return 1
  fi
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_servers() {
  local dir=$1
  need_packages || { echo "extpillar: cannot install PostgreSQL/MariaDB" >&2; return 1; }
  local pgbin
  pgbin=$(dirname "$(ls -d /usr/lib/postgresql/*/bin/postgres | sort -V | tail -1)")
  mkdir -p "$dir/pg" "$dir/my" "$dir/run"
  chmod 777 "$dir" "$dir/run"
  PG_PORT=$(free_port)
  MY_PORT=$(free_port)
  # PostgreSQL refuses to run as root: its own system user runs it.
  local as=(runuser -u postgres --)
  [ "$(id -u)" -ne 0 ] && as=()
  chown postgres "$dir/pg" 2>/dev/null || true
  echo "$PW" >"$dir/run/pgpw" && chmod 644 "$dir/run/pgpw"
  "${as[@]}" "$pgbin/initdb" -D "$dir/pg" -U postgres --auth=trust >"$dir/run/initdb.log" 2>&1 || { cat "$dir/run/initdb.log" >&2; return 1; }
  "${as[@]}" "$pgbin/pg_ctl" -D "$dir/pg" -l "$dir/run/pg.log" -w -o "-p $PG_PORT -k $dir/run -c listen_addresses=127.0.0.1" start >/dev/null \
    || { cat "$dir/run/pg.log" >&2; return 1; }
  PG_CTL=("${as[@]}" "$pgbin/pg_ctl" -D "$dir/pg")
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -q -c "CREATE USER salt PASSWORD '$PW'" -c "CREATE DATABASE salt OWNER salt" >/dev/null || return 1
  # From now on, passwords are checked.
  sed -i 's/trust$/scram-sha-256/' "$dir/pg/pg_hba.conf"
  psql -h 127.0.0.1 -p "$PG_PORT" -U postgres -q -c "ALTER USER postgres PASSWORD '$PW'" -c "SELECT pg_reload_conf()" >/dev/null || return 1

  mariadb-install-db --datadir="$dir/my" --user="$(id -un)" --auth-root-authentication-method=normal >"$dir/run/my-install.log" 2>&1 \
    || { cat "$dir/run/my-install.log" >&2; return 1; }
  mariadbd --no-defaults --datadir="$dir/my" --port="$MY_PORT" --bind-address=127.0.0.1 --socket="$dir/run/my.sock" \
    --pid-file="$dir/run/my.pid" --user="$(id -un)" --skip-log-bin >"$dir/run/my.log" 2>&1 &
  MY_PID=$!
  for _ in $(seq 1 60); do
    mariadb --no-defaults -S "$dir/run/my.sock" -u root -e "SELECT 1" >/dev/null 2>&1 && break
    sleep 0.5
  done
  mariadb --no-defaults -S "$dir/run/my.sock" -u root -e \
    "CREATE DATABASE salt; CREATE USER 'salt'@'127.0.0.1' IDENTIFIED BY '$PW'; CREATE USER 'salt'@'localhost' IDENTIFIED BY '$PW'; GRANT ALL ON salt.* TO 'salt'@'127.0.0.1'; GRANT ALL ON salt.* TO 'salt'@'localhost';" \
    || { cat "$dir/run/my.log" >&2; return 1; }
  export PG_PORT MY_PORT PW
}

stop_servers() {
  [ -n "${PG_CTL:-}" ] && "${PG_CTL[@]}" -m fast stop >/dev/null 2>&1
  [ -n "${MY_PID:-}" ] && kill "$MY_PID" 2>/dev/null && wait "$MY_PID" 2>/dev/null
  return 0
}
