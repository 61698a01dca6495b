// Filled by the bid page's work.
