include:
  - common
  - .tls
  - webserver_1.0        # mistake: a dotted SLS name can never be loaded
  - web.missing          # mistake: no such file

nginx:
  test.nop:
    - name: nginx
    - require:
      - test: tls_cert
    - watch:
      - sls: web.tls

nginx_conf:
  test.succeed_with_changes:
    - require_in:
      - test: nginx

deploy_user:
  user.present:
    - name: deploy
    - home_dir: /srv/deploy   # mistake: user.present takes `home`; Salt aborts the whole run on this
