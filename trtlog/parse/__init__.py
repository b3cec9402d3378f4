"""The log parser: input decoding, envelopes, keyword dispatch, grammars and the event stream.

See :mod:`trtlog.parse.stream` for the loop that ties the steps together.
"""
