package dev.rota.bench.report;

import java.awt.Color;
import java.awt.Graphics2D;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;
import org.knowm.xchart.style.Styler;

/**
 * results.png: three XChart panels stacked — throughput bars, notification→claim latency
 * percentiles, and activations/s against backlog size (flat is the goal). Log scales, since the
 * systems differ by orders of magnitude.
 */
public final class ChartReport {

  private static final int WIDTH = 1200;
  private static final int PANEL_HEIGHT = 420;

  private ChartReport() {}

  public static void write(BenchResults results, Path png) throws IOException {
    List<Chart<?, ?>> panels = new ArrayList<>();
    panels.add(bars(results, "throughput", "Throughput (higher is better)", "per second"));
    panels.add(bars(results, "latency", "Notification → claim latency (lower is better)", "ms"));
    panels.add(scaling(results));
    BufferedImage image =
        new BufferedImage(WIDTH, PANEL_HEIGHT * panels.size(), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, image.getWidth(), image.getHeight());
    for (int i = 0; i < panels.size(); i++) {
      g.drawImage(BitmapEncoder.getBufferedImage(panels.get(i)), 0, i * PANEL_HEIGHT, null);
    }
    g.dispose();
    ImageIO.write(image, "png", png.toFile());
  }

  private static CategoryChart bars(
      BenchResults results, String chartName, String title, String yTitle) {
    CategoryChart chart =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(PANEL_HEIGHT)
            .title(title)
            .yAxisTitle(yTitle)
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    chart.getStyler().setYAxisLogarithmic(true);
    chart.getStyler().setXAxisLabelRotation(20);
    chart.getStyler().setOverlapped(false);
    List<String> categories = new ArrayList<>();
    Map<String, Map<String, Double>> bySystem = new LinkedHashMap<>();
    for (SystemResult system : results.systems()) {
      for (WorkloadResult workload : system.workloads()) {
        for (Metric metric : workload.metrics()) {
          if (chartName.equals(metric.chart()) && metric.value() > 0) {
            String category = workload.workload() + ": " + metric.label();
            if (!categories.contains(category)) {
              categories.add(category);
            }
            bySystem
                .computeIfAbsent(system.system(), s -> new LinkedHashMap<>())
                .put(category, metric.value());
          }
        }
      }
    }
    if (categories.isEmpty()) {
      chart.setTitle(title + " — no data");
      chart.getStyler().setYAxisLogarithmic(false);
      chart.addSeries("none", List.of("none"), List.of(0));
      return chart;
    }
    // Bars start at zero unless told otherwise, which a log axis refuses: start a decade below.
    double smallest =
        bySystem.values().stream()
            .flatMap(v -> v.values().stream())
            .mapToDouble(Double::doubleValue)
            .min()
            .orElse(1);
    chart.getStyler().setYAxisMin(Math.pow(10, Math.floor(Math.log10(smallest))));
    bySystem.forEach(
        (system, values) -> {
          List<Double> ys = new ArrayList<>();
          // A system without the figure (n/a for it) gets no bar there.
          categories.forEach(c -> ys.add(values.get(c)));
          chart.addSeries(system, categories, ys);
        });
    return chart;
  }

  private static XYChart scaling(BenchResults results) {
    XYChart chart =
        new XYChartBuilder()
            .width(WIDTH)
            .height(PANEL_HEIGHT)
            .title("Backlog scaling: activations/s by unread backlog (flat is the goal)")
            .xAxisTitle("unread notifications")
            .yAxisTitle("activations/s")
            .build();
    chart.getStyler().setLegendPosition(Styler.LegendPosition.OutsideE);
    boolean any = false;
    for (SystemResult system : results.systems()) {
      List<Double> xs = new ArrayList<>();
      List<Double> ys = new ArrayList<>();
      for (WorkloadResult workload : system.workloads()) {
        for (Metric metric : workload.metrics()) {
          if ("scaling".equals(metric.chart()) && metric.x() != null && metric.value() > 0) {
            xs.add(metric.x());
            ys.add(metric.value());
          }
        }
      }
      if (!xs.isEmpty()) {
        chart.addSeries(system.system(), xs, ys);
        any = true;
      }
    }
    if (any) {
      chart.getStyler().setXAxisLogarithmic(true);
      chart.getStyler().setYAxisLogarithmic(true);
    } else {
      chart.setTitle(chart.getTitle() + " — no data");
      chart.addSeries("none", new double[] {1}, new double[] {0});
    }
    return chart;
  }
}
