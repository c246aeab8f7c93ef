{% set s = pillar['secret'] %}
hashes:
  test.nop:
    - md5: {{ s | md5 }}
    - sha1: {{ s | sha1 }}
    - sha256: {{ 'salt' | sha256 }}
    - sha512: {{ s | sha512 }}
    - empty_md5: {{ '' | md5 }}
    - uuid: {{ grains['id'] | uuid }}
    - uuid_unicode: {{ s | uuid }}
    - b64: {{ s | base64_encode }}
    - b64_back: {{ (s | base64_encode | base64_decode) == s }}
    - b64_skips: {{ 'aGVs bG8=' | base64_decode }}
    - num: {{ '0042' | str_to_num + 1 }} {{ '1_000' | to_num }} {{ '2.50' | str_to_num }} {{ 'x1' | to_num }}
