CREATE TABLE `backup_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`slot` integer,
	`trigger` text NOT NULL,
	`status` text DEFAULT 'running' NOT NULL,
	`node` text NOT NULL,
	`repository` text NOT NULL,
	`started_at` integer NOT NULL,
	`finished_at` integer,
	`duration_ms` integer,
	`snapshot_id` text,
	`size_bytes` integer,
	`added_bytes` integer,
	`files` integer,
	`reason` text,
	`alerted_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `backup_runs_slot_uq` ON `backup_runs` (`slot`);--> statement-breakpoint
CREATE INDEX `backup_runs_started_idx` ON `backup_runs` (`started_at`);--> statement-breakpoint
CREATE TABLE `recovery_sheets` (
	`id` text PRIMARY KEY NOT NULL,
	`printed_by` text,
	`repository` text NOT NULL,
	`password_tag` text NOT NULL,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`printed_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `recovery_sheets_repository_idx` ON `recovery_sheets` (`repository`,`password_tag`);