x: {{ salt.test.ping() }}
y: {{ salt.test.nope() }}
