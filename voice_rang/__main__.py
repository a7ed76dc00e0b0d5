"""``python -m voice_rang`` is the same as ``voice-rang``."""

import sys

from voice_rang.cli import main

sys.exit(main())
