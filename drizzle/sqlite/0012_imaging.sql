CREATE TABLE `imaging_instances` (
	`id` text PRIMARY KEY NOT NULL,
	`report_id` text NOT NULL,
	`file_key` text NOT NULL,
	`series_uid` text NOT NULL,
	`series_number` integer,
	`series_description` text,
	`modality` text,
	`instance_number` integer,
	`sop_instance_uid` text NOT NULL,
	`rows` integer NOT NULL,
	`columns` integer NOT NULL,
	`frames` integer NOT NULL,
	`transfer_syntax` text NOT NULL,
	`size` integer NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `imaging_instances_report_idx` ON `imaging_instances` (`report_id`,`series_uid`,`instance_number`,`id`);--> statement-breakpoint
CREATE INDEX `imaging_instances_file_key_idx` ON `imaging_instances` (`file_key`);--> statement-breakpoint
CREATE TABLE `imaging_previews` (
	`key` text PRIMARY KEY NOT NULL,
	`instance_id` text NOT NULL,
	`frame` integer NOT NULL,
	`preset` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`instance_id`) REFERENCES `imaging_instances`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `imaging_previews_uq` ON `imaging_previews` (`instance_id`,`frame`,`preset`);--> statement-breakpoint
CREATE TABLE `imaging_studies` (
	`report_id` text PRIMARY KEY NOT NULL,
	`study_uid` text NOT NULL,
	`modality` text,
	`body_part` text,
	`study_date` text,
	`description` text,
	`personal_fields` text NOT NULL,
	`pacs_status` text DEFAULT 'none' NOT NULL,
	`pacs_attempts` integer DEFAULT 0 NOT NULL,
	`pacs_next_at` integer,
	`pacs_locked_until` integer,
	`pacs_error` text,
	`pacs_sent_at` integer,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`report_id`) REFERENCES `reports`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `imaging_studies_pacs_due_idx` ON `imaging_studies` (`pacs_status`,`pacs_next_at`,`report_id`);