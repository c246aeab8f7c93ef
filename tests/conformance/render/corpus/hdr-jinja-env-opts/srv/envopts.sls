envopts:
  test.nop:
    - hosts: |
        {% for h in ['a', 'b'] %}
        host {{ h }}
        {% endfor %}
        ## a Jinja line comment under jinja_sls_env: it leaves no text behind
        end
    - text: "[[ 'kept' ]] as text, jinja_env does not apply"
