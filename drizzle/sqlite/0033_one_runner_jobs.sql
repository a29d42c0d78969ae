CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`payload` text NOT NULL,
	`state` text DEFAULT 'queued' NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`run_at` integer NOT NULL,
	`holder` text,
	`leased_until` integer,
	`last_error` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	`finished_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `jobs_kind_key_uq` ON `jobs` (`kind`,`key`);--> statement-breakpoint
CREATE INDEX `jobs_kind_state_idx` ON `jobs` (`kind`,`state`,`run_at`,`id`);--> statement-breakpoint
CREATE INDEX `jobs_state_lease_idx` ON `jobs` (`state`,`leased_until`);