#!/usr/bin/env bash
# The Python driver runs from the clone with the project's interpreter ($PYTHON, which has rocketmq-python-client):
# nothing to build, only the wrapper to write.
set -euo pipefail
out=$1
here=$(cd "$(dirname "$0")" && pwd)
python=${PYTHON:-python3}
printf '#!/usr/bin/env bash\nexec %q %q "$@"\n' "$python" "$here/driver.py" > "$out/driver"
chmod +x "$out/driver"
