CREATE TABLE `ended_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`user_id` text NOT NULL,
	`reason` text NOT NULL,
	`ended_at` integer NOT NULL,
	`expires_at` integer NOT NULL,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `ended_sessions_user_idx` ON `ended_sessions` (`user_id`);--> statement-breakpoint
CREATE INDEX `ended_sessions_expires_idx` ON `ended_sessions` (`expires_at`);--> statement-breakpoint
CREATE TABLE `held_items` (
	`id` text PRIMARY KEY NOT NULL,
	`centre_id` text NOT NULL,
	`worker_id` text,
	`worker_name` text NOT NULL,
	`kind` text NOT NULL,
	`idem_key` text NOT NULL,
	`reason` text NOT NULL,
	`fields` text NOT NULL,
	`file_key` text,
	`file_name` text,
	`file_type` text,
	`file_size` integer,
	`status` text DEFAULT 'held' NOT NULL,
	`handed_to` text,
	`handed_by` text,
	`handed_at` integer,
	`result_id` text,
	`created_at` integer DEFAULT (cast(unixepoch('subsecond') * 1000 as integer)) NOT NULL,
	FOREIGN KEY (`centre_id`) REFERENCES `centres`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`worker_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`handed_to`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`handed_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `held_items_worker_key_uq` ON `held_items` (`worker_id`,`idem_key`);--> statement-breakpoint
CREATE INDEX `held_items_centre_idx` ON `held_items` (`centre_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `held_items_worker_status_idx` ON `held_items` (`worker_id`,`status`);