"""AlphaZero's self-play training of the PUCT agent's network (``python -m mctslab train``).

:mod:`mctslab.alphazero.training` plays PUCT against itself with the current network,
trains the network on the results, and evaluates it by matches; :mod:`mctslab.alphazero.cli`
is the command. The network and the evaluators PUCT reads it through are :mod:`mctslab.nets`
(below the agents); this package sits above the agents and tournaments it uses.
"""
