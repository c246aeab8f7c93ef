x: 1
y: {{ salt.nope.fn('y') }}
