{% set pkgs = ['nginx', 'curl'] %}
packages:
  pkg.installed:
    - pkgs: {{ pkgs | join(',' }}
    - refresh: true
