vpn:
  port: 1194
  clients: [alice]
  server: {proto: udp}
other: {k: 1}
