// Filled by the invitation page's work.
