CREATE TABLE `take_overs` (
	`id` text PRIMARY KEY NOT NULL,
	`patient_id` text NOT NULL,
	`started_by` text,
	`started_as` text NOT NULL,
	`phone` text NOT NULL,
	`previous` text DEFAULT '{}' NOT NULL,
	`keep_access` integer DEFAULT false NOT NULL,
	`report_token_hash` text NOT NULL,
	`reported_at` integer,
	`flag` text,
	`reviewed_at` integer,
	`reviewed_by` text,
	`undone_at` integer,
	`undone_by` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`started_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`reviewed_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`undone_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `take_overs_token_uq` ON `take_overs` (`report_token_hash`);--> statement-breakpoint
CREATE INDEX `take_overs_patient_idx` ON `take_overs` (`patient_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `take_overs_started_by_idx` ON `take_overs` (`started_by`);--> statement-breakpoint
CREATE INDEX `take_overs_created_idx` ON `take_overs` (`created_at`,`id`);