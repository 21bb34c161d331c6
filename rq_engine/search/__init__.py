"""The staged search pipeline: a stream of result batches, cancellable between batches."""
