"""The network table: the host's server (commands in, public events out), the guest's client,
and the web page the host serves. See ``docs/network.md``."""
