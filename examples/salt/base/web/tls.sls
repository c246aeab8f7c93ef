tls_cert:
  test.succeed_without_changes:
    - name: /etc/ssl/web.pem
    - require:
      - test: tls_key          # mistake: tls_key <-> tls_cert form a cycle

tls_key:
  test.nop:
    - require:
      - tls_cert
