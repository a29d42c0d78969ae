CREATE TABLE `preview_cache` (
	`key` text PRIMARY KEY NOT NULL,
	`file_key` text NOT NULL,
	`owner` text NOT NULL,
	`bytes` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `preview_cache_owner_idx` ON `preview_cache` (`owner`,`created_at`);--> statement-breakpoint
CREATE INDEX `preview_cache_file_idx` ON `preview_cache` (`file_key`);--> statement-breakpoint
CREATE TABLE `proven_numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`number` text NOT NULL,
	`patient_id` text NOT NULL,
	`how` text NOT NULL,
	`proven_at` integer NOT NULL,
	FOREIGN KEY (`patient_id`) REFERENCES `patients`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `proven_numbers_uq` ON `proven_numbers` (`patient_id`,`number`);--> statement-breakpoint
CREATE TABLE `work_failures` (
	`kind` text NOT NULL,
	`subject` text NOT NULL,
	`reason` text NOT NULL,
	`failed_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `subject`)
);
--> statement-breakpoint
CREATE TABLE `work_turns` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`account` text NOT NULL,
	`node` text NOT NULL,
	`state` text NOT NULL,
	`leased_until` integer NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL
);
--> statement-breakpoint
CREATE INDEX `work_turns_kind_idx` ON `work_turns` (`kind`,`state`,`node`);--> statement-breakpoint
CREATE INDEX `work_turns_account_idx` ON `work_turns` (`kind`,`account`);