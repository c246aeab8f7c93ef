user-state-{{ name }}:
  user.present:
    - name: {{ name }}
