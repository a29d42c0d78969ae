CREATE TABLE `voice_notes` (
	`id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`followup_id` text,
	`kind` text NOT NULL,
	`author_id` text,
	`language` text DEFAULT 'en' NOT NULL,
	`file_key` text NOT NULL,
	`mime_type` text NOT NULL,
	`size` integer NOT NULL,
	`duration_ms` integer NOT NULL,
	`heard_note` text,
	`heard_by` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`followup_id`) REFERENCES `report_followups`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`heard_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `voice_notes_report_idx` ON `voice_notes` (`report_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `voice_notes_file_key_idx` ON `voice_notes` (`file_key`);