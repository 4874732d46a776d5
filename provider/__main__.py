"""Plugin entry point: the Python language host runs this file to start the pathways-gke provider.

The library is imported from this checkout (../components), so the provider always serves the code of
the commit the consumer pinned; provider/requirements.txt installs only its third-party dependencies.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "components"))

from pathways_gke.provider import main  # noqa: E402

if __name__ == "__main__":
    main()
