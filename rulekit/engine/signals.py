"""What an instruction of the compiled code returns besides the next pc (see `codegen`), and the marker of its
own pc in its lines."""
from __future__ import annotations

SUSPEND, FRAMES, HALT, TRIGGER = -1, -2, -3, -4
OWN_PC = "@PC@"  # in an instruction's lines: its own pc, which a signal leaves in the frame to resume at
