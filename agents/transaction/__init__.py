"""Transactional messages (RIP-32's last special message): the half message, the transaction id, check-backs."""
