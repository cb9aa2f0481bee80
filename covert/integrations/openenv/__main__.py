"""``python -m covert.integrations.openenv --port 8000 --dataset data/covert-tools``: run the server."""

from covert.integrations.openenv.server import main

main()
