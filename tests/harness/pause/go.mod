module pinconsole.local/pause

go 1.22
