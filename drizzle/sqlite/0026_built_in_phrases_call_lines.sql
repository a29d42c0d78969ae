CREATE TABLE `built_in_phrases` (
	`id` text PRIMARY KEY NOT NULL,
	`reviewed_by` text,
	`texts_hash` text,
	`reviewed_at` integer,
	`recorded_by` text,
	`retired_at` integer,
	`updated_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`recorded_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE TABLE `call_lines` (
	`node` text PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`detail` text,
	`changed_at` integer NOT NULL,
	`seen_at` integer NOT NULL
);
