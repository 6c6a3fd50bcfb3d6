"""The app layer: the ``ohmygoods`` command and its subcommands, the top of the import graph.

Layers import only downward (cards → rules → layout → core → engine / infostate → actions /
scenario / render → batch / picture → envs → agents → training → apps). This package is the
only place that imports :mod:`agents` and :mod:`training`, with plain imports, inside the
functions that need them so that ``ohmygoods --help`` starts fast. Nothing below it imports it.

=================  =============================================================
module             owns
=================  =============================================================
``cli``            the dispatcher: subcommands, ``--version``, quiet closed pipes
``common``         argument parsing: defaults in ``--help``, validated types, the
                   one-time engine compile notice; ``game_command`` (``--game`` of
                   demo, play, fuzz, train: the game's implementation, named by its tools)
``demo``           ``ohmygoods demo``: a narrated game of Oh my Goods! between bots
``game_demo``      ``ohmygoods demo --game NAME``: a framework game told from its spec
``game_train``     ``ohmygoods train --game NAME``: the framework's self-play loop
``fuzz_artificium`` ``ohmygoods fuzz --game artificium``: its compiled fuzzer
``play``           ``ohmygoods play``: terminal play (seat choice, hint, undo)
``serve``          ``ohmygoods serve``: play in the browser (standard-library server)
``replay``         ``ohmygoods replay``: a game as a self-contained HTML page
``web_shell``      what every game's browser page shares (server, checks, sessions,
                   tables, replay template); imports no game
``web_ohmygoods``  Oh my Goods!'s page kind and replay pages (named by its spec)
``web_artificium`` Artificium's page kind and replay pages (named by its spec)
``web_generic``    the page of any game whose spec names none: text view, action buttons
``tournament``     ``ohmygoods tournament``: the command line of ``ohmygoods_agents.tournament``
``bench``          ``ohmygoods bench``: throughput next to the anchors
``fuzz``           ``ohmygoods fuzz``: the command line of ``ohmygoods_env.fuzz``
``train``          ``ohmygoods train``: prints the plan, then ``ohmygoods_training.fast_ppo`` (or a recipe)
=================  =============================================================
"""
