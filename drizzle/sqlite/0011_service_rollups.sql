CREATE TABLE `service_gauge_minutes` (
	`minute` integer NOT NULL,
	`name` text NOT NULL,
	`value` integer NOT NULL,
	PRIMARY KEY(`minute`, `name`)
);
--> statement-breakpoint
CREATE TABLE `service_request_minutes` (
	`minute` integer NOT NULL,
	`route_group` text NOT NULL,
	`status_class` text NOT NULL,
	`count` integer DEFAULT 0 NOT NULL,
	`le_5` integer DEFAULT 0 NOT NULL,
	`le_10` integer DEFAULT 0 NOT NULL,
	`le_25` integer DEFAULT 0 NOT NULL,
	`le_50` integer DEFAULT 0 NOT NULL,
	`le_100` integer DEFAULT 0 NOT NULL,
	`le_250` integer DEFAULT 0 NOT NULL,
	`le_500` integer DEFAULT 0 NOT NULL,
	`le_1000` integer DEFAULT 0 NOT NULL,
	`le_2500` integer DEFAULT 0 NOT NULL,
	`le_5000` integer DEFAULT 0 NOT NULL,
	`le_inf` integer DEFAULT 0 NOT NULL,
	PRIMARY KEY(`minute`, `route_group`, `status_class`)
);
