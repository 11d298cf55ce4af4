module pinconsole.local/podshim

go 1.22
