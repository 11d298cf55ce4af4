"""PinCompute reconciliation core: a pure library shared by the portal and the operator.

Nothing here imports Django or talks to the network in validate/translate/schedule/quota code, so the
portal can preview exactly what the operator will do, and both can be tested without a cluster.
"""

GROUP = "pincompute.io"
VERSION = "v1"
API_VERSION = f"{GROUP}/{VERSION}"
