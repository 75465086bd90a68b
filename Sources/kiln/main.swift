// The `kiln` executable: plain `kiln compile` command lines, and a hand-over to `kiln-cli`
// for everything else (CommandLauncher says why there are two executables).
import KilnCompileTool

CommandLauncher.start(otherCommandsIn: "kiln-cli")
