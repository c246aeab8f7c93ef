vault: {{ salt['vault.read_secret'] is defined }}
pushover: {{ salt.pushover is defined }}
{% do salt['zabbix.get_zabbix_id_mapper']() %}
done: true
