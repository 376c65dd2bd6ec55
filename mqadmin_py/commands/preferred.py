"""``assign-preferred-master``: the name is reserved for the preferred-master feature (issue 6).

Until then the command refuses (exit 4) and points at what works today, so a runbook written against the
final command fails loudly instead of silently doing something else.
"""

from __future__ import annotations

from mqadmin_py.errors import Refused


def assign_preferred_master() -> None:
    """(Not yet available) Record a broker set's preferred master; use 'electMaster -b ID' meanwhile."""
    raise Refused(
        "assign-preferred-master is not available in this version; to move the master now use "
        "'mqadmin electMaster -c CLUSTER -bn BROKER_SET -b BROKER_ID', and set brokerElectionPriority in the "
        "broker config for a soft preference"
    )
