// The `kiln` executable: only an entry point; the commands live in KilnCLI.
import KilnCLI

Kiln.start()
