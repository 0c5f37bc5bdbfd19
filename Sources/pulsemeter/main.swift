import PulseMeterCLI
CLI.main()
