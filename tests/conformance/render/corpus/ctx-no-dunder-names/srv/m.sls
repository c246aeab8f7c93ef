a:
  test.nop:
    - names:
      - {{ __salt__ is defined }}
      - {{ __grains__ is defined }}
      - {{ __pillar__ is defined }}
      - {{ __opts__ is defined }}
      - {{ salt is defined and grains is defined and pillar is defined and opts is defined }}
