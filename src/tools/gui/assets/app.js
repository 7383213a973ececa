// The page arrives in the next commit.
