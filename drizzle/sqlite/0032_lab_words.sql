CREATE TABLE `lab_words` (
	`locale` text NOT NULL,
	`word` text NOT NULL,
	`correction` text,
	`corrected_by` text,
	`corrected_at` integer,
	`reviewed_by` text,
	`reviewed_on` text,
	`reviewed_hash` text,
	`recorded_by` text,
	`recorded_at` integer,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	PRIMARY KEY(`locale`, `word`),
	FOREIGN KEY (`corrected_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`recorded_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
