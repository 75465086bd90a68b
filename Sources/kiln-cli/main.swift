// The `kiln-cli` executable: every `kiln` command (KilnCLI). Users run `kiln`, which hands
// it every command line but a plain compile (KilnCompileTool's CommandLauncher).
import KilnCLI

Kiln.main()
